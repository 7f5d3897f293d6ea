// Entry of the detached runner process: `node runner.cjs <state dir> <task id>`.
// Started by `start`, `resume` and restarts; never by users directly. The
// build bundles it into one CommonJS file: an ESM module graph costs the runner
// megabytes of RSS per live task, and that memory is the product's footprint.

import {fstatSync} from 'node:fs'
import {Runner} from './core/runner.js'

function main(): void {
  const [stateDir, idText] = process.argv.slice(2)
  const id = Number(idText)
  if (!stateDir || !Number.isSafeInteger(id)) {
    process.stderr.write('usage: runner <state dir> <task id>\n')
    process.exit(2)
  }

  // fd 3 is the launcher's readiness pipe when present.
  let readyFd: number | undefined
  try {
    fstatSync(3)
    readyFd = 3
  } catch {
    readyFd = undefined
  }

  let runner: Runner
  try {
    runner = new Runner({stateDir, id, readyFd})
  } catch (error) {
    process.stderr.write(`drover runner: ${(error as Error).message}\n`)
    process.exit(1)
  }

  const crash = (error: unknown) => {
    runner.fail(error)
    process.exit(1)
  }
  process.on('uncaughtException', crash)
  process.on('unhandledRejection', crash)
  // The runner has no terminal; SIGHUP from a closing session must not end it.
  process.on('SIGHUP', () => {})
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      void runner.interrupted(signal).finally(() => process.exit(0))
    })
  }

  runner.main().then(() => process.exit(0), crash)
}

main()
