// Memory per live task: RSS and PSS of idle drover runners beside bare idle
// node processes, nq's waiting process, and pm2's daemon divided by its
// tasks. Each group is measured alone (PSS splits shared pages among every
// process mapping them, so groups alive together would distort each other).

import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {row, skipped} from './report.mjs'
import {childrenOf, drover, kill, median, memoryOf, reapTasks, run, sleep, waitFor} from './util.mjs'

// Long enough for a runner's start-up garbage to be collected or settled.
const SETTLE_MS = 2000

function sample(pids) {
  const mems = pids.map(memoryOf).filter(Boolean)
  if (mems.length < pids.length) throw new Error('a process to measure vanished')
  return {rssKb: median(mems.map((m) => m.rssKb)), pssKb: median(mems.map((m) => m.pssKb))}
}

/** The polite way first; whatever it leaves (or a broken build) is killed. */
export function stopAll(stateDir) {
  try {
    drover(stateDir, ['stop', '--all', '--time', '2s', '-q'], {ok: [0, 1]})
  } finally {
    reapTasks(stateDir)
  }
}

async function droverRunners(ctx, count) {
  const stateDir = ctx.dirs.fresh('memory')
  const ids = []
  for (let i = 0; i < count; i++) ids.push(Number(drover(stateDir, ['start', '--', 'sleep', '600']).stdout.trim()))
  const pids = ids.map((id) => JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(id), 'runner.json'), 'utf8')).pid)
  try {
    await sleep(SETTLE_MS)
    return sample(pids)
  } finally {
    stopAll(stateDir)
  }
}

async function bareNodes(count) {
  const children = []
  for (let i = 0; i < count; i++) children.push(spawn(process.execPath, ['-e', 'setInterval(()=>{},1e9)'], {stdio: 'ignore'}))
  try {
    await sleep(SETTLE_MS)
    return sample(children.map((c) => c.pid))
  } finally {
    for (const child of children) child.kill('SIGKILL')
  }
}

/** nq forks a process that holds the queue lock and waits for the job: that process is its cost per job. */
async function nqWaiters(ctx, count) {
  const nq = ctx.sandbox('nq')
  for (let i = 0; i < count; i++) run('nq', ['sleep', '600'], {env: nq.env})
  const jobs = await waitFor(() => {
    const pids = nq.jobPids()
    return pids.length === count ? pids : null
  }, {message: 'nq jobs'})
  try {
    const holders = jobs.map((job) => {
      const stat = readFileSync(`/proc/${job}/stat`, 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    })
    await sleep(SETTLE_MS)
    return sample(holders)
  } finally {
    for (const job of jobs) kill(job, 'SIGKILL')
  }
}

/** pm2 runs every app under its one daemon: its memory ÷ apps is the per-task cost. */
async function pm2Daemon(ctx, count) {
  const pm2 = ctx.sandbox('pm2')
  for (let i = 0; i < count; i++) run('pm2', ['start', 'sleep', '--name', `mem-${i}`, '--no-autorestart', '--', '600'], {env: pm2.env})
  try {
    await sleep(SETTLE_MS)
    const pid = pm2.daemonPid()
    if (!pid) throw new Error('pm2 daemon pid not found')
    const mem = memoryOf(pid)
    return {rssKb: mem.rssKb / count, pssKb: mem.pssKb / count}
  } finally {
    const pid = pm2.daemonPid()
    run('pm2', ['delete', 'all'], {env: pm2.env, ok: [0, 1]})
    if (pid) for (const child of childrenOf(pid)) kill(child, 'SIGKILL')
  }
}

export async function memory(ctx) {
  const {peers} = ctx
  const n = ctx.sizes.memTasks
  const runner = await droverRunners(ctx, n)
  const bare = await bareNodes(n)
  const rows = [
    row('memory: idle runner RSS', runner.rssKb, 'bare idle `node`', bare.rssKb, 'kB', {maxRatio: 1.1}),
    row('memory: idle runner PSS', runner.pssKb, 'bare idle `node`', bare.pssKb, 'kB'),
  ]
  if (peers.nq.available) {
    const nq = await nqWaiters(ctx, n)
    rows.push(row('memory: idle runner RSS, beside an `nq` job', runner.rssKb, "nq's waiting process", nq.rssKb, 'kB'))
    rows.push(row('memory: idle runner PSS, beside an `nq` job', runner.pssKb, "nq's waiting process", nq.pssKb, 'kB'))
  } else rows.push(skipped('memory beside an `nq` job', peers.nq.note))
  if (peers.pm2.available) {
    const pm2 = await pm2Daemon(ctx, n)
    rows.push(row(`memory: idle runner RSS, beside pm2`, runner.rssKb, `pm2 daemon ÷ ${n} tasks`, pm2.rssKb, 'kB'))
    rows.push(row(`memory: idle runner PSS, beside pm2`, runner.pssKb, `pm2 daemon ÷ ${n} tasks`, pm2.pssKb, 'kB'))
  } else rows.push(skipped('memory beside pm2', peers.pm2.note))
  return rows
}
