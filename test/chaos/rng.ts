// A small seeded generator (mulberry32): the same seed gives the same
// operations and faults, so a failing run replays from the seed it printed.
// Each actor of each round draws from its own stream, so one actor's choices
// do not shift another's when timing makes them interleave differently.

export class Rng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A stream of its own for (seed, round, actor). */
  static derive(seed: number, ...parts: number[]): Rng {
    let h = seed >>> 0
    for (const part of parts) h = Math.imul(h ^ (part + 0x9e3779b9), 0x85ebca6b) >>> 0
    return new Rng(h ^ (h >>> 13))
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]
  }

  /** One of `weighted`'s keys, each as likely as its weight. */
  weighted<K extends string>(weighted: Record<K, number>): K {
    const entries = Object.entries(weighted) as [K, number][]
    let roll = this.next() * entries.reduce((sum, [, w]) => sum + w, 0)
    for (const [key, weight] of entries) {
      roll -= weight
      if (roll < 0) return key
    }
    return entries[entries.length - 1][0]
  }
}
