// Waiting for a file to change without trusting fs.watch alone: fs.watch
// misses events (and follows an inode, not a name), so every wait also ends
// after a short poll interval. Shared by `logs -f` and every "wait for the
// final status".

import {watch, type FSWatcher} from 'node:fs'

export class Wakeup {
  private pending: (() => void) | null = null
  private readonly watchers: FSWatcher[] = []

  /** Ends the current sleep early. */
  readonly wake = (): void => this.pending?.()

  /** Wakes on any change to these paths; one that cannot be watched is left to the poll. */
  watch(targets: string[]): this {
    for (const target of targets) {
      try {
        const watcher = watch(target, this.wake)
        watcher.on('error', () => watcher.close())
        this.watchers.push(watcher)
      } catch {
        // the poll covers it
      }
    }
    return this
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.pending = null
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.pending = done
    })
  }

  close(): void {
    for (const watcher of this.watchers.splice(0)) watcher.close()
    this.pending?.()
  }
}
