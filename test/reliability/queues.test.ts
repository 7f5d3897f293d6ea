// Queue torture: 200 tasks from 20 processes at once into a queue of parallel
// 4, with random SIGKILLs of runners and workers, while a sampler reads the
// process table: never more than 4 workers of the queue alive, every task
// ends, and the queue starts them in its order. Then a reboot simulation: a
// half-run queue with everything killed continues after `resume --interrupted`
// and nothing that had succeeded runs twice.

import {execa} from 'execa'
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {FINAL_STATUSES} from '../../src/state/record.js'
import {waitingKey} from '../../src/state/queues.js'
import {cleanupStateDirs, drover, fixture, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

/**
 * Live (not zombie) workers whose command line contains `marker`, one per
 * process group: a worker is the leader of its own group, and a shell's child
 * between fork and exec still shows the shell's command line.
 */
function workersAlive(marker: string): number[] {
  const groups = new Set<number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) continue
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (state !== 'Z' && state !== 'X') groups.add(Number(pgrp))
    } catch {
      // gone meanwhile
    }
  }
  return [...groups]
}

/** Samples the process table until stopped; resolves with the most workers seen at once. */
function sampler(marker: string, limit = Infinity): {stop: () => Promise<number>; seen: () => {at: number; groups: number[]}[]} {
  let max = 0
  let running = true
  const over: {at: number; groups: number[]}[] = []
  const loop = (async () => {
    while (running) {
      const groups = workersAlive(marker)
      max = Math.max(max, groups.length)
      if (groups.length > limit && over.length < 5) over.push({at: Date.now(), groups})
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return max
  })()
  return {
    stop: async () => {
      running = false
      return loop
    },
    seen: () => over,
  }
}

const events = (dir: string, id: number): {event: string; ts: string; [key: string]: unknown}[] =>
  readFileSync(path.join(dir, 'tasks', String(id), 'events.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().slice(-300)
  } catch {
    return ''
  }
}

/** What a failure says of the groups seen over the limit: each one's task and the times its run moved, to tell how the slot was given. */
function explainOver(dir: string, ids: number[], samples: {at: number; groups: number[]}[]): string {
  const clock = (ts: string | number) => new Date(ts).toISOString().slice(11, 23)
  return samples
    .map(({at, groups}) => {
      const tasks = groups.map((pgid) => {
        const id = ids.find((i) => {
          try {
            return readTask(dir, i).worker?.pid === pgid
          } catch {
            return false // pruned
          }
        })
        if (id === undefined) return `group ${pgid}: no task`
        const moves = events(dir, id)
          .filter((e) => !['output', 'usage'].includes(e.event))
          .map((e) => `${e.event}${e.status ? `(${String(e.status)})` : ''}@${clock(e.ts)}`)
        // a runner's crash (an uncaught error) is in its log
        const log = tail(path.join(dir, 'tasks', String(id), 'runner.log'))
        return `task ${id} ${readTask(dir, id).status} [${moves.join(' ')}]${log ? ` runner.log: ${log}` : ''}`
      })
      return `at ${clock(at)}: ${tasks.join('; ')}`
    })
    .join(' | ')
}

function runnerPid(dir: string, id: number): number | null {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'tasks', String(id), 'runner.json'), 'utf8')).pid
  } catch {
    return null
  }
}

const dequeuedAt = (dir: string, id: number): string[] =>
  events(dir, id)
    .filter((event) => event.event === 'dequeued')
    .map((event) => event.ts)

describe('a queue of parallel 4 under load', () => {
  it('200 tasks from 20 processes with random SIGKILLs: never more than 4 workers alive, all end, FIFO within a priority', {timeout: 600_000}, async () => {
    const dir = makeStateDir()
    const marker = `drover-rel-queue-${path.basename(dir)}`
    expect((await drover(dir, ['queue', 'set', 'rel', '--parallel', '4'])).exitCode).toBe(0)
    const watch = sampler(marker, 4)
    let killing = true
    let kills = 0
    // Kills a random runner or worker of the queue now and then.
    const killer = (async () => {
      while (killing) {
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 400))
        let ids: number[] = []
        try {
          ids = readdirSync(path.join(dir, 'tasks')).filter((n) => /^\d+$/.test(n)).map(Number)
        } catch {
          continue // no task yet
        }
        const live = ids.filter((id) => {
          try {
            return readTask(dir, id).status === 'running'
          } catch {
            return false
          }
        })
        if (live.length === 0) continue
        const id = live[Math.floor(Math.random() * live.length)]
        try {
          if (Math.random() < 0.5) {
            const pid = runnerPid(dir, id)
            if (pid) process.kill(pid, 'SIGKILL')
          } else {
            process.kill(-readTask(dir, id).worker.pid, 'SIGKILL')
          }
          kills++
        } catch {
          // ended meanwhile
        }
      }
    })()
    const starters = await Promise.all(
      Array.from({length: 20}, () => execa(process.execPath, [fixture('rel-queue-starter.mjs'), dir, 'rel', '10'], {env: {REL_MARKER: marker}, reject: false, timeout: 400_000})),
    )
    const ids = starters.flatMap((run) => {
      expect(run.exitCode, String(run.stderr)).toBe(0)
      return JSON.parse(String(run.stdout)).ids as number[]
    })
    expect(new Set(ids).size).toBe(200)
    // No daemon: when a killed runner hands nothing on, the next command (any) does.
    await waitFor(
      async () => {
        await drover(dir, ['list', '-q'])
        return ids.every((id) => FINAL_STATUSES.includes(readTask(dir, id).status))
      },
      {timeout: 400_000, interval: 500, message: 'every task to reach a final status'},
    )
    killing = false
    await killer
    const max = await watch.stop()
    expect(max, `workers of the queue alive at once; over the limit: ${explainOver(dir, ids, watch.seen())}`).toBeLessThanOrEqual(4)
    expect(max).toBeGreaterThan(1)
    expect(kills).toBeGreaterThan(5)

    // Each task started once, in the queue's order within its priority.
    const tasks = ids.map((id) => readTask(dir, id))
    for (const task of tasks) expect(dequeuedAt(dir, task.id), `task ${task.id}`).toHaveLength(1)
    for (const priority of [0, 1]) {
      const line = tasks.filter((t) => t.priority === priority).sort((a, b) => waitingKey(a).localeCompare(waitingKey(b)))
      for (let i = 1; i < line.length; i++) {
        expect(dequeuedAt(dir, line[i - 1].id)[0] <= dequeuedAt(dir, line[i].id)[0], `task ${line[i - 1].id} before ${line[i].id}`).toBe(true)
      }
    }
    const statuses = new Set(tasks.map((t) => t.status))
    expect([...statuses].every((s) => ['succeeded', 'failed', 'lost'].includes(s)), [...statuses].join()).toBe(true)
  })

  it('reboot with a half-run queue: after resume --interrupted it continues, and nothing that succeeded runs again', {timeout: 300_000}, async () => {
    const dir = makeStateDir()
    const marker = `drover-rel-reboot-${path.basename(dir)}`
    const out = path.join(dir, 'ran.log')
    expect((await drover(dir, ['queue', 'set', 'r', '--parallel', '2'])).exitCode).toBe(0)
    const ids: number[] = []
    for (let i = 0; i < 8; i++) {
      // Appends its id when it starts and again when it finishes.
      const script = `echo "start $DROVER_TASK_ID" >> '${out}'; sleep ${i < 2 ? 0.2 : 3}; echo "done $DROVER_TASK_ID" >> '${out}'`
      const r = await drover(dir, ['start', '--queue', 'r', '--', 'sh', '-c', script, marker])
      ids.push(Number(r.stdout.trim()))
    }
    // The first two succeed; two more are running when the machine "goes down".
    await waitFor(() => readTask(dir, ids[0]).status === 'succeeded' && readTask(dir, ids[1]).status === 'succeeded')
    await waitFor(() => ids.filter((id) => readTask(dir, id).status === 'running').length === 2)
    const running = ids.filter((id) => readTask(dir, id).status === 'running')
    for (const id of ids) {
      const pid = runnerPid(dir, id)
      if (pid) process.kill(pid, 'SIGKILL')
    }
    for (const pid of workersAlive(marker)) process.kill(pid, 'SIGKILL')
    await waitFor(() => workersAlive(marker).length === 0, {timeout: 20_000})
    // What the machine had when it went down: a worker that had just ended
    // but whose runner died before recording it is interrupted too, and runs
    // again (its end was never recorded); what was recorded succeeded must not.
    const linesBefore = readFileSync(out, 'utf8').trim().split('\n')
    const succeededBefore = ids.filter((id) => readTask(dir, id).status === 'succeeded')
    const cutShort = running.filter((id) => !linesBefore.includes(`done ${id}`))
    expect(succeededBefore).toEqual(expect.arrayContaining([ids[0], ids[1]]))

    const resumed = await drover(dir, ['resume', '--interrupted'])
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    const watch = sampler(marker)
    await waitFor(
      async () => {
        await drover(dir, ['list', '-q'])
        return ids.every((id) => readTask(dir, id).status === 'succeeded')
      },
      {timeout: 200_000, interval: 500, message: 'the whole queue to succeed'},
    )
    expect(await watch.stop()).toBeLessThanOrEqual(2)
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    const after = lines.slice(linesBefore.length)
    const count = (from: string[], line: string) => from.filter((l) => l === line).length
    for (const id of ids) {
      if (succeededBefore.includes(id)) {
        // recorded succeeded before the reboot: never run again
        expect([id, count(lines, `start ${id}`), count(lines, `done ${id}`)], `task ${id} ran once`).toEqual([id, 1, 1])
      } else {
        // every other task ran to its end exactly once after the resume
        expect([id, count(after, `start ${id}`), count(after, `done ${id}`)], `task ${id} ran once after the resume`).toEqual([id, 1, 1])
      }
    }
    // the reboot cut a run short: it started twice, and finished once, after the resume
    expect(cutShort.length, 'a run was cut short by the reboot').toBeGreaterThan(0)
    for (const id of cutShort) expect([id, count(lines, `start ${id}`), count(lines, `done ${id}`)]).toEqual([id, 2, 1])
    expect(readTask(dir, ids[0]).runs).toHaveLength(1)
  })

  it('racing queue set --parallel, pause/resume, prune and stop --all against a busy queue: within the highest limit, everything ends, nothing crashes', {timeout: 300_000}, async () => {
    const dir = makeStateDir()
    const marker = `drover-rel-race-${path.basename(dir)}`
    expect((await drover(dir, ['queue', 'set', 'race', '--parallel', '2'])).exitCode).toBe(0)
    const watch = sampler(marker, 4)
    const starters = Promise.all(
      Array.from({length: 4}, () =>
        execa(process.execPath, [fixture('rel-queue-starter.mjs'), dir, 'race', '10'], {env: {REL_MARKER: marker}, reject: false, timeout: 200_000}),
      ),
    )
    const outputs: {args: string[]; stderr: string; exitCode: number}[] = []
    const fire = async (args: string[]) => {
      const r = await drover(dir, args)
      outputs.push({args, stderr: r.stderr, exitCode: r.exitCode})
    }
    let racing = true
    const racers = Promise.all([
      (async () => {
        for (let i = 0; racing; i++) await fire(['queue', 'set', 'race', '--parallel', String(1 + (i % 4))])
      })(),
      (async () => {
        for (let i = 0; racing; i++) await fire(['queue', i % 2 === 0 ? 'pause' : 'resume', 'race'])
      })(),
      (async () => {
        while (racing) await fire(['prune', '--keep', '5', '-q'])
      })(),
    ])
    const ids = (await starters).flatMap((run) => {
      expect(run.exitCode, String(run.stderr)).toBe(0)
      return JSON.parse(String(run.stdout)).ids as number[]
    })
    // Race on a while with the queue full of waiting tasks.
    await new Promise((resolve) => setTimeout(resolve, 5000))
    racing = false
    await racers
    await fire(['queue', 'resume', 'race'])
    await fire(['stop', '--all', '--time', '2s'])
    await waitFor(
      async () => {
        await drover(dir, ['list', '-q'])
        return ids.every((id) => {
          try {
            return FINAL_STATUSES.includes(readTask(dir, id).status)
          } catch {
            return true // pruned: it had ended
          }
        })
      },
      {timeout: 120_000, interval: 500, message: 'every task to end'},
    )
    const max = await watch.stop()
    expect(max, `over the highest limit: ${explainOver(dir, ids, watch.seen())}`).toBeLessThanOrEqual(4)
    for (const o of outputs) {
      expect(o.stderr, o.args.join(' ')).not.toMatch(/TypeError|ReferenceError|\n\s+at /)
      expect([0, 4], `${o.args.join(' ')}: ${o.stderr}`).toContain(o.exitCode)
    }
    await waitFor(() => workersAlive(marker).length === 0, {timeout: 20_000, message: 'no worker left'})
    await waitFor(() => readdirSync(path.join(dir, 'locks')).filter((n) => !n.endsWith('.released')).length === 0, {message: 'no lock left'})
  })
})
