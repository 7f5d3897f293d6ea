// Entry of the detached runner process: `node runner.js <state dir> <task id>`.
// Started by `start`, `resume` and restarts; never by users directly.

import {Runner} from './core/runner.js'

const [stateDir, idText] = process.argv.slice(2)
const id = Number(idText)
if (!stateDir || !Number.isSafeInteger(id)) {
  process.stderr.write('usage: runner.js <state dir> <task id>\n')
  process.exit(2)
}

// fd 3 is the launcher's readiness pipe when present.
let readyFd: number | undefined
try {
  (await import('node:fs')).fstatSync(3)
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

process.on('uncaughtException', (error) => {
  runner.fail(error)
  process.exit(1)
})
process.on('unhandledRejection', (error) => {
  runner.fail(error)
  process.exit(1)
})
// The runner has no terminal; SIGHUP from a closing session must not end it.
process.on('SIGHUP', () => {})
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    void runner.interrupted(signal).finally(() => process.exit(0))
  })
}

await runner.main()
process.exit(0)
