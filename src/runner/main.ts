// Entry of the detached runner process: `node runner.cjs <state dir> <task id>`,
// or `node runner.cjs --standby` to boot first and read "<state dir>\n<id>\n"
// from stdin (see runner/local-executor.ts). Started by `start`, `resume` and
// restarts; never by users directly. The build bundles it into one CommonJS
// file: an ESM module graph costs the runner megabytes of RSS per live task,
// and that memory is the product's footprint.

import {fstatSync, readSync} from 'node:fs'
import {logRunnerError, Runner, setRunnerErrorLog} from './runner.js'
import {openAppend, taskPaths} from '../state/store.js'
import {handOff} from './handoff.js'
import {HOOK_FLAG, superviseExitHooks} from './exit-hooks.js'
import {STATUS_HOOKS_FLAG, superviseStatusHooks} from './status-hooks.js'
import {restoreDeferredEnv} from '../process/boot-env.js'

// Same literal as STANDBY_FLAG in runner/standby.ts, which the runner does not
// import (it is the launcher's side, and finds files by its own location).
const STANDBY_FLAG = '--standby'
const ADOPT_FLAG = '--adopt'
// Same literal as in runner/slurm-commands.ts: the runner is a Slurm job's batch script process.
const REMOTE_FLAG = '--slurm'

function main(stateDir: string | undefined, idText: string | undefined, adopt = false, remote = false): void {
  const id = Number(idText)
  if (!stateDir || !Number.isSafeInteger(id)) {
    logRunnerError('usage: runner <state dir> <task id>\n')
    process.exit(2)
  }

  // fd 3 is the launcher's readiness pipe when present. A batch job has no
  // launcher waiting, and its fd 3 may be Node's own: closing that aborts it.
  let readyFd: number | undefined
  try {
    if (!remote) fstatSync(3)
    readyFd = remote ? undefined : 3
  } catch {
    readyFd = undefined
  }

  let runner: Runner
  try {
    runner = new Runner({stateDir, id, readyFd, adopt, remote})
  } catch (error) {
    logRunnerError(`drover runner: ${(error as Error).message}\n`)
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
  if (remote) {
    process.on('SIGUSR1', () => runner.drainFromEngine())
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      // The scheduler's TERM (scancel, a time limit) is a stop to record, not the runner's own end.
      if (remote && signal === 'SIGTERM' && runner.stopFromEngine()) return
      // `lost` is a final status too: its hooks fire as it is recorded (no slot is handed on: a shutdown, usually).
      void runner
        .interrupted(signal)
        .then(() => runner.statusHooksStarted())
        .finally(() => process.exit(0))
    })
  }

  // The runs a follow-up's run followed (runRuns) stay at hand: a supervisor of
  // their status hooks may still be due to start (status-starter.ts).
  const followed: Runner[] = []
  // Once the task has ended, its slot is handed on (a failure to do so is left
  // to the next drover command, which advances queues too).
  runRuns()
    .then(
      async () => {
        // Every run's status-hook supervisor, not only the last one's: a Slurm job's end would kill them.
        const runs = [...followed, runner]
        for (const ran of runs) await ran.statusHooksStarted()
        const hooks = [runner.hooks, ...runs.map((ran) => ran.statusHooks)]
        await handOff(stateDir, id, {remote, hooks}).catch((error: unknown) => logRunnerError(`drover runner: queue hand-off: ${(error as Error).message}\n`))
      },
      crash,
    )
    .then(() => process.exit(0), crash)

  // A run whose end opened the next for a follow-up is followed by that run,
  // in this process: no new runner to start, the slot and the job kept.
  async function runRuns(): Promise<void> {
    await runner.main()
    while (runner.followupOpened) {
      followed.push(runner)
      runner = new Runner({stateDir: stateDir!, id, remote})
      await runner.main()
    }
  }
}

/**
 * Reads the whole assignment from stdin with blocking reads: a standby runner
 * has nothing else to do, and a stdin stream would load Node's socket and
 * stream machinery, which stays resident for the runner's whole life.
 */
function readAssignment(): string {
  const chunks: Buffer[] = []
  const buffer = Buffer.alloc(4096)
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    let read: number
    try {
      read = readSync(0, buffer, 0, buffer.length, null)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 5)
        continue
      }
      if (code === 'EOF') break
      throw error
    }
    if (read === 0) break
    chunks.push(Buffer.from(buffer.subarray(0, read)))
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Waits for the task on stdin; a closed pipe with nothing on it means "not needed". */
function standby(): void {
  const [stateDir, idText] = readAssignment().split('\n')
  if (!stateDir || !idText) process.exit(0)
  // Launched before the task existed, this runner's stderr is nowhere: point
  // its messages at the task's runner.log, as a directly spawned runner's are.
  try {
    setRunnerErrorLog(openAppend(taskPaths(stateDir, Number(idText)).runnerLog))
  } catch {
    // no log: errors still end up in the record's reason
  }
  main(stateDir, idText)
}

// What the launcher kept from Node's boot (process/boot-env.ts) goes back
// before anything is spawned: the worker and the hooks inherit it.
restoreDeferredEnv()

const [first, second, third, fourth] = process.argv.slice(2)
const supervised = (work: Promise<void>) =>
  work.then(
    () => process.exit(0),
    (error: unknown) => {
      logRunnerError(`drover hooks: ${(error as Error).message}\n`)
      process.exit(1)
    },
  )
if (first === HOOK_FLAG) supervised(superviseExitHooks(second, Number(third), Number(fourth)))
else if (first === STATUS_HOOKS_FLAG) supervised(superviseStatusHooks(second, Number(third)))
else if (first === STANDBY_FLAG) standby()
else main(first, second, third === ADOPT_FLAG, third === REMOTE_FLAG)
