// Holding --max-output to a bound, not just a check: a worker writing at disk
// speed crosses any cap between two 250 ms ticks by hundreds of megabytes, and
// one that ignores SIGTERM would write on through the whole grace. So when the
// output grows fast enough to reach the cap soon, this checks its size every
// few milliseconds; crossing it starts the graded stop, and output that keeps
// growing past cap + OVERRUN_BYTES after that gets SIGKILL at once. A quiet
// task costs nothing: only the runner's tick looks at it. Builtins only.

import {statSync} from 'node:fs'

const FAST_POLL_MS = 5
/** How far past the cap the output may grow after the stop began before SIGKILL, without waiting for the grace. */
export const OVERRUN_BYTES = 16 * 1024 * 1024

export interface OutputCapHooks {
  /** the cap is crossed: start the graded stop (once). */
  over: () => void
  /** the output kept growing past cap + OVERRUN_BYTES: kill now (once). */
  overrun: (bytes: number) => void
}

export class OutputCapWatch {
  private poll: NodeJS.Timeout | null = null
  private stopped = false
  private overrunSent = false

  constructor(
    private readonly file: string,
    /** output.log's size when this run began: the cap is per run. */
    private readonly start: number,
    private readonly cap: number,
    private readonly hooks: OutputCapHooks,
  ) {}

  /**
   * Called each tick with the size and its growth since the last tick: when
   * two more ticks at this pace would cross the cap, poll fast from now on.
   */
  observe(size: number, growth: number): void {
    if (this.stopped) return
    this.judge(size)
    if (this.poll === null && size - this.start + 2 * growth >= this.cap) {
      this.poll = setInterval(() => this.check(), FAST_POLL_MS)
    }
  }

  stop(): void {
    this.stopped = true
    if (this.poll) clearInterval(this.poll)
    this.poll = null
  }

  private check(): void {
    try {
      this.judge(statSync(this.file).size)
    } catch {
      // removed under us: the tick notices
    }
  }

  private crossed = false

  private judge(size: number): void {
    const over = size - this.start - this.cap
    if (over <= 0) return
    if (!this.crossed) {
      this.crossed = true
      this.hooks.over()
    } else if (over > OVERRUN_BYTES && !this.overrunSent) {
      this.overrunSent = true
      this.hooks.overrun(over)
    }
  }
}
