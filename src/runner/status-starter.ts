// When a runner starts its task's status-hook supervisor (status-hooks.ts):
// never before `start` has its answer, and a moment after it — a supervisor
// is a Node process booting, and on a busy machine its boot beside the
// `start` still printing its answer and exiting made that start a fifth
// slower (bench: `start --on-status true`). One supervisor started then tells
// every change noted before it, so a task that ends within that moment
// starts one supervisor, not three. The runner waits for a wanted supervisor
// to be started before it exits.

import type {ChildProcess} from 'node:child_process'
import type {RunnerEntry} from './exit-hooks.js'
import {fireStatusHooks} from './status-hooks.js'

/** How long after `start`'s answer a supervisor may start. */
export const AFTER_ANSWER_MS = 300

export class StatusHookStarter {
  /** the supervisor last started. */
  child: ChildProcess | null = null
  private answeredAt: number | null
  private wanted = false
  private timer: NodeJS.Timeout | null = null
  private pending: Promise<void> | null = null
  private release: (() => void) | null = null

  /** `answers`: a launcher waits for this runner's answer (fd 3); without one, supervisors start at once. `entry`: what a supervisor is started from. */
  constructor(
    private readonly stateDir: string,
    private readonly id: number,
    answers: boolean,
    private readonly entry: RunnerEntry,
  ) {
    this.answeredAt = answers ? null : 0
  }

  /** A change was noted for the status hooks. */
  want(): void {
    this.wanted = true
    this.schedule()
  }

  /** `start` has its answer. */
  answered(): void {
    if (this.answeredAt !== null) return
    this.answeredAt = Date.now()
    this.schedule()
  }

  /** Resolves once a wanted supervisor has been started (at once when none is wanted). */
  started(): Promise<void> {
    if (this.wanted && this.answeredAt === null) this.answered()
    return this.pending ?? Promise.resolve()
  }

  private schedule(): void {
    if (!this.wanted || this.answeredAt === null || this.timer) return
    const wait = this.answeredAt + AFTER_ANSWER_MS - Date.now()
    if (wait <= 0) return this.fire()
    this.pending = new Promise((resolve) => (this.release = resolve))
    this.timer = setTimeout(() => {
      this.timer = null
      this.fire()
      this.release?.()
      this.pending = null
    }, wait)
  }

  private fire(): void {
    this.wanted = false
    this.child = fireStatusHooks(this.stateDir, this.id, this.entry) ?? this.child
  }
}
