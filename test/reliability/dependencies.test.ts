// Dependency graphs under load: 30 tasks with random --after / --after-ended
// edges to earlier tasks (chains and diamonds), one in four failing, some in a
// queue of 2. Afterwards every task has ended, and for each: it ran if and only
// if every --after dependency succeeded (else it is skipped, naming one that
// did not), never before its dependencies ended, and a queue never ran more
// than its limit.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {FINAL_STATUSES} from '../../src/state/record.js'
import {cleanupStateDirs, drover, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

const events = (dir: string, id: number) =>
  readFileSync(path.join(dir, 'tasks', String(id), 'events.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))

// A small deterministic generator, so a failure can be reproduced from the seed it prints.
function random(seed: number) {
  let x = seed
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31
    return x / 2 ** 31
  }
}

describe('dependency graphs', () => {
  it('30 tasks with random edges and failures: ran iff every --after dependency succeeded, never early', {timeout: 300_000}, async () => {
    const seed = Date.now() % 100_000
    const rand = random(seed)
    const dir = makeStateDir()
    expect((await drover(dir, ['queue', 'set', 'g', '--parallel', '2'])).exitCode).toBe(0)
    const plan: {id: number; after: number[]; afterEnded: number[]; fails: boolean; queued: boolean}[] = []
    for (let i = 0; i < 30; i++) {
      const earlier = plan.map((p) => p.id)
      const pick = () => earlier.filter(() => rand() < 0.12)
      const after = pick()
      const afterEnded = pick().filter((id) => !after.includes(id))
      const fails = rand() < 0.25
      const queued = rand() < 0.4
      const args = ['start', ...(queued ? ['--queue', 'g'] : [])]
      if (after.length) args.push('--after', after.join(','))
      if (afterEnded.length) args.push('--after-ended', afterEnded.join(','))
      args.push('--', 'sh', '-c', `sleep 0.${Math.floor(rand() * 4)}; exit ${fails ? 1 : 0}`)
      const r = await drover(dir, args)
      expect(r.exitCode, `seed ${seed}: ${r.stderr}`).toBe(0)
      plan.push({id: Number(r.stdout.trim()), after, afterEnded, fails, queued})
    }
    await waitFor(
      async () => {
        await drover(dir, ['list', '-q'])
        return plan.every((p) => FINAL_STATUSES.includes(readTask(dir, p.id).status))
      },
      {timeout: 200_000, interval: 500, message: `seed ${seed}: every task to end`},
    )
    const record = new Map(plan.map((p) => [p.id, readTask(dir, p.id)]))
    for (const p of plan) {
      const task = record.get(p.id)
      const what = `seed ${seed}, task ${p.id} (after ${p.after}, after-ended ${p.afterEnded})`
      const shouldRun = p.after.every((id) => record.get(id).status === 'succeeded')
      if (shouldRun) {
        expect(task.status, what).toBe(p.fails ? 'failed' : 'succeeded')
        const started = Date.parse(events(dir, p.id).find((e) => e.event === 'started').ts)
        for (const dep of [...p.after, ...p.afterEnded]) expect(started, `${what}: started before ${dep} ended`).toBeGreaterThanOrEqual(Date.parse(record.get(dep).endedAt))
      } else {
        expect(task.status, what).toBe('skipped')
        const blamed = Number(/^dependency (\d+) /.exec(task.reason)?.[1])
        expect(p.after, what).toContain(blamed)
        expect(record.get(blamed).status, what).not.toBe('succeeded')
        expect(events(dir, p.id).some((e) => e.event === 'started'), what).toBe(false)
      }
    }
    // The queue's limit held: at no moment were more than 2 of its tasks between started and exit.
    const spans = plan.filter((p) => p.queued).flatMap((p) => {
      const ev = events(dir, p.id)
      const s = ev.find((e) => e.event === 'started')
      const e = ev.find((x) => x.event === 'exit')
      return s && e ? [[Date.parse(s.ts), Date.parse(e.ts)]] : []
    })
    for (const [from] of spans) expect(spans.filter(([s, e]) => s <= from && from < e).length, `seed ${seed}`).toBeLessThanOrEqual(2)
  })
})
