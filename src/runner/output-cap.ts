// Holding --max-output to a bound, not just a check: a worker writing at disk
// speed crosses any cap between two 250 ms ticks by hundreds of megabytes, and
// one that ignores SIGTERM would write on through the whole grace. So the size
// is checked on every change of output.log (fs.watch; the kernel merges a
// flood of changes into few events), at most every few milliseconds, and by
// the runner's tick in case a change was missed; crossing the cap starts the
// graded stop, and output that keeps growing past cap + OVERRUN_BYTES after
// that gets SIGKILL at once. Builtins only.

import {statSync, watch, type FSWatcher} from 'node:fs'

const FAST_POLL_MS = 2
/** How far past the cap the output may grow after the stop began before SIGKILL, without waiting for the grace. */
export const OVERRUN_BYTES = 4 * 1024 * 1024

export interface OutputCapHooks {
  /** the cap is crossed: start the graded stop (once). */
  over: () => void
  /** the output kept growing past cap + OVERRUN_BYTES: kill now (once). */
  overrun: (bytes: number) => void
}

export class OutputCapWatch {
  private poll: NodeJS.Timeout | null = null
  private watcher: FSWatcher | null = null
  private stopped = false
  private overrunSent = false
  private checkedAt = 0

  constructor(
    private readonly file: string,
    /** output.log's size when this run began: the cap is per run. */
    private readonly startSize: number,
    private readonly cap: number,
    private readonly hooks: OutputCapHooks,
  ) {}

  /** Checks on every change of the file from now on. */
  start(): this {
    try {
      this.watcher = watch(this.file, () => {
        const now = Date.now()
        if (now - this.checkedAt < FAST_POLL_MS) return
        this.checkedAt = now
        this.check()
      })
      this.watcher.on('error', () => this.watcher?.close())
    } catch {
      // no fs.watch here (a network file system): the tick's polling remains
    }
    return this
  }

  /**
   * Called each tick with the size and its growth since the last tick: when
   * two more ticks at this pace would cross the cap, poll fast from now on
   * (fs.watch may miss changes).
   */
  observe(size: number, growth: number): void {
    if (this.stopped) return
    this.judge(size)
    if (this.poll === null && size - this.startSize + 2 * growth >= this.cap) {
      this.poll = setInterval(() => this.check(), FAST_POLL_MS)
    }
  }

  stop(): void {
    this.stopped = true
    if (this.poll) clearInterval(this.poll)
    this.poll = null
    this.watcher?.close()
    this.watcher = null
  }

  private check(): void {
    if (this.stopped) return
    try {
      this.judge(statSync(this.file).size)
    } catch {
      // removed under us: the tick notices
    }
  }

  private crossed = false

  private judge(size: number): void {
    const over = size - this.startSize - this.cap
    if (over <= 0) return
    if (!this.crossed) {
      this.crossed = true
      // From here on every few milliseconds count: watch the size without waiting for events.
      if (this.poll === null) this.poll = setInterval(() => this.check(), FAST_POLL_MS)
      this.hooks.over()
    } else if (over > OVERRUN_BYTES && !this.overrunSent) {
      this.overrunSent = true
      this.hooks.overrun(over)
    }
  }
}
