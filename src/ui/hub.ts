// One watch of the state dir for every open page. Drover.events() reads the
// task records on each wake-up; ten tabs must not mean ten readers of the
// same records four times a second. The watch starts with the first
// subscriber and stops with the last.

import type {Drover, TaskEvent} from '../api/drover.js'

type Listener = (event: TaskEvent) => void

export class EventHub {
  private readonly listeners = new Set<Listener>()
  private aborter: AbortController | null = null

  constructor(private readonly drover: Drover) {}

  /** Calls `listener` with every change from now on; returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    if (!this.aborter) this.start()
    return () => {
      this.listeners.delete(listener)
      if (this.listeners.size === 0) this.stop()
    }
  }

  stop(): void {
    this.aborter?.abort()
    this.aborter = null
  }

  private start(): void {
    const aborter = new AbortController()
    this.aborter = aborter
    void (async () => {
      try {
        for await (const event of this.drover.events({signal: aborter.signal})) for (const listener of this.listeners) listener(event)
      } catch {
        // the state dir went away or became unreadable: a later subscriber starts again
      } finally {
        if (this.aborter === aborter) this.aborter = null
      }
    })()
  }
}
