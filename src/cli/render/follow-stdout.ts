// Following a task onto this terminal or pipe: shared by `logs -f` and
// `start --follow`. Ctrl-C stops following, never the task. Raw bytes by
// default; NDJSON (see follow-json.ts) under --json.

import type {Drover} from '../../api/drover.js'
import type {OutputReset} from '../../api/output.js'
import type {TaskJson} from '../../api/task-json.js'
import {eventLine, outputLines} from './follow-json.js'
import {exitWhenReaderLeaves} from './reader-watch.js'

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
export function lostMessage(task: TaskJson, workerAlive: boolean): string {
  const worker = workerAlive && task.pid !== null ? `; its worker (pid ${task.pid}) is still running` : ''
  return `task ${task.id} is lost: ${task.reason ?? 'its runner vanished'}, so its exit code is unknown${worker}; see drover status ${task.id}, continue it with drover resume ${task.id}`
}

export interface FollowToStdoutOptions {
  /** NDJSON instead of the raw output. */
  json?: boolean
  /** `start --follow --json` opens the stream with the task it started. */
  started?: TaskJson
}

/** Streams the task's output from `offset` until it ends; resolves to the exit code the command should use. */
export async function followToStdout(drover: Drover, id: number, offset: number, opts: FollowToStdoutOptions = {}): Promise<number> {
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
    if (json && opts.started) await writeOut(eventLine({type: 'started', id, task: opts.started}))
    const end = await drover.followOutput(id, {
      offset,
      write: json ? (chunk, at) => writeOut(outputLines(id, chunk, at)) : writeOut,
      signal: abort.signal,
      onReset: (reason: OutputReset) =>
        json ? writeOut(eventLine({type: 'reset', id, reason})) : void process.stderr.write(`drover: output.log was ${reason}; reading it from the start\n`),
    })
    if (writeError) throw writeError
    switch (end.outcome) {
      case 'ended': {
        if (json) await writeOut(eventLine({type: 'end', id, exitCode: end.exitCode, task: end.task}))
        if (end.task.status === 'lost') process.stderr.write(`drover: ${lostMessage(end.task, end.workerAlive)}\n`)
        return end.exitCode
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
