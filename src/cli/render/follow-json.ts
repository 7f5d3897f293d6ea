// The --json form of following (`logs -f --json`, `start --follow --json`):
// NDJSON, one object per line, each naming its `type` and the task `id`, so a
// script can read output and the outcome from one stream as it comes.

import type {OutputReset} from '../../api/output.js'
import type {TaskJson} from '../../api/task-json.js'

export type FollowEvent =
  /** `start --follow` only: the task is running (or failed to start: then `end` follows at once). */
  | {type: 'started'; id: number; task: TaskJson}
  /**
   * A line of output, with its newline; a line still unfinished after a moment
   * (a prompt, a progress bar) comes without it and the rest follows in the
   * next object. `offset`/`end` are byte positions in output.log: `logs -f
   * --offset END` carries on after this object.
   */
  | {type: 'output'; id: number; offset: number; end: number; text: string}
  /** output.log was truncated or replaced: offsets start again at 0. */
  | {type: 'reset'; id: number; reason: OutputReset}
  /** The task ended; `exitCode` is drover's own (the task's code, 128 + signal number, 1 without one). */
  | {type: 'end'; id: number; exitCode: number; task: TaskJson}
  | {type: 'error'; id: number; error: {message: string; exitCode: number}}

export function eventLine(event: FollowEvent): string {
  return JSON.stringify(event) + '\n'
}

/** One `output` object per line of `chunk`, which starts at byte `offset` of output.log. */
export function outputLines(id: number, chunk: Buffer, offset: number): string {
  let text = ''
  let start = 0
  while (start < chunk.length) {
    const newline = chunk.indexOf(10, start)
    const stop = newline === -1 ? chunk.length : newline + 1
    text += eventLine({type: 'output', id, offset: offset + start, end: offset + stop, text: chunk.toString('utf8', start, stop)})
    start = stop
  }
  return text
}
