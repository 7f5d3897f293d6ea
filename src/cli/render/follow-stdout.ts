// Following a task onto this terminal or pipe: shared by `logs -f` and
// `start --follow`. Ctrl-C stops following, never the task. Raw bytes by
// default; NDJSON (see follow-json.ts) under --json.

import {followTask, type ResetReason} from '../../tasks/follow.js'
import {signalNumber} from '../../platform/platform.js'
import {workerAlive} from '../../tasks/reconcile.js'
import {taskExitCode, type TaskRecord} from '../../state/record.js'
import {eventLine, outputLines} from './follow-json.js'
import {exitWhenReaderLeaves} from './reader-watch.js'
import {taskJson} from '../../api/task-json.js'

/**
 * Resolves once stdout has taken the chunk, so a slow reader slows following
 * rather than filling memory; rejects with the write's error, which ends
 * following and is the command's to report (a closed pipe included).
 */
function writeOut(chunk: Buffer | string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()))
  })
}

/** Why following ends with exit 1 and no exit code: one line, with what to do next. */
export function lostMessage(record: TaskRecord): string {
  const worker = workerAlive(record) ? `; its worker (pid ${record.worker!.pid}) is still running` : ''
  return `task ${record.id} is lost: ${record.reason ?? 'its runner vanished'}, so its exit code is unknown${worker}; see drover status ${record.id}, continue it with drover resume ${record.id}`
}

export interface FollowToStdoutOptions {
  /** NDJSON instead of the raw output. */
  json?: boolean
  /** `start --follow --json` opens the stream with the task it started. */
  started?: TaskRecord
}

/** Streams the task's output from `offset` until it ends; resolves to the exit code the command should use. */
export async function followToStdout(stateDir: string, id: number, offset: number, opts: FollowToStdoutOptions = {}): Promise<number> {
  const json = opts.json ?? false
  const abort = new AbortController()
  const onInterrupt = () => abort.abort()
  // An error on stdout between two writes ends following too; it is rethrown below, never swallowed.
  let writeError: Error | null = null
  const onWriteError = (error: Error) => {
    writeError ??= error
    abort.abort()
  }
  process.once('SIGINT', onInterrupt)
  process.stdout.on('error', onWriteError)
  // A closed pipe (`drover logs -f 3 | head`) ends drover quietly, even while the task is silent.
  const stopWatching = exitWhenReaderLeaves()
  try {
    if (json && opts.started) await writeOut(eventLine({type: 'started', id, task: taskJson(opts.started)}))
    const end = await followTask({
      stateDir,
      id,
      offset,
      write: json ? (chunk, at) => writeOut(outputLines(id, chunk, at)) : writeOut,
      signal: abort.signal,
      onReset: (reason: ResetReason) =>
        json ? writeOut(eventLine({type: 'reset', id, reason})) : void process.stderr.write(`drover: output.log was ${reason}; reading it from the start\n`),
    })
    if (writeError) throw writeError
    switch (end.outcome) {
      case 'ended': {
        const exitCode = taskExitCode(end.record, signalNumber)
        if (json) await writeOut(eventLine({type: 'end', id, exitCode, task: taskJson(end.record)}))
        if (end.record.status === 'lost') process.stderr.write(`drover: ${lostMessage(end.record)}\n`)
        return exitCode
      }
      case 'removed': {
        const message = `task ${id} was removed while following`
        if (json) await writeOut(eventLine({type: 'error', id, error: {message, exitCode: 3}}))
        else process.stderr.write(`drover: ${message}\n`)
        return 3
      }
      case 'aborted':
        process.stderr.write(`\ndrover: stopped following; task ${id} is still running (drover stop ${id} to stop it)\n`)
        return 130
    }
  } finally {
    stopWatching()
    process.removeListener('SIGINT', onInterrupt)
    process.stdout.removeListener('error', onWriteError)
  }
}
