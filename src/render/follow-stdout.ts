// Following a task onto this terminal or pipe: shared by `logs -f` and
// `start --follow`. Ctrl-C stops following, never the task.

import {followTask} from '../core/follow.js'
import {signalNumber} from '../core/platform.js'
import {taskExitCode} from '../core/record.js'
import {exitWhenReaderLeaves} from './reader-watch.js'

async function writeOut(chunk: Buffer): Promise<void> {
  if (process.stdout.write(chunk)) return
  await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()))
}

/** Streams the task's output from `offset` until it ends; resolves to the exit code the command should use. */
export async function followToStdout(stateDir: string, id: number, offset: number): Promise<number> {
  const abort = new AbortController()
  const onInterrupt = () => abort.abort()
  process.once('SIGINT', onInterrupt)
  // A closed pipe (`drover logs -f 3 | head`) ends drover quietly, even while the task is silent.
  const stopWatching = exitWhenReaderLeaves()
  try {
    const end = await followTask({
      stateDir,
      id,
      offset,
      write: writeOut,
      signal: abort.signal,
      notice: (message) => process.stderr.write(`drover: ${message}\n`),
    })
    switch (end.outcome) {
      case 'ended':
        return taskExitCode(end.record, signalNumber)
      case 'removed':
        process.stderr.write(`drover: task ${id} was removed while following\n`)
        return 3
      case 'aborted':
        if (!process.stdout.writableEnded && !process.stdout.destroyed) {
          process.stderr.write(`\ndrover: stopped following; task ${id} is still running (drover stop ${id} to stop it)\n`)
        }
        return 130
    }
  } finally {
    stopWatching()
    process.removeListener('SIGINT', onInterrupt)
  }
}
