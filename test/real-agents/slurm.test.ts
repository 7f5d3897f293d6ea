// The real claude as a Slurm job: drained mid-turn on the node, resumed as a
// new job in its own conversation. The suite's network namespace has only
// its own loopback, so a cluster brought up outside cannot be reached from
// here: this file brings its own single-node cluster up inside the
// namespace (scripts/slurm-cluster.mjs with a private TMPDIR, so it never
// takes another cluster for its own) and down at the end. Needs root and
// Debian's slurm-wlm and munge, as the Slurm suite does; CI has both.
//
// Slurm's daemons resolve their listening address with AI_ADDRCONFIG, which
// finds nothing where the only addresses are loopback ones; one address from
// TEST-NET-1 (never routed) put on `lo` satisfies it and reaches nowhere —
// the interface is still loopback, and every connection still goes to
// 127.0.0.1.

import {spawnSync} from 'node:child_process'
import {chmodSync, mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, json, makeStateDir, readTask, ROOT, waitFor} from '../helpers/cli.js'
import {agentTempDir, cleanupAgentDirs} from './harness/env.js'
import type {FakeModelServer} from './harness/fake-server.js'
import {killProcessesOf} from './harness/processes.js'
import {CLAUDE} from './harness/real-agents.js'

const onPath = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`], {stdio: 'ignore'}).status === 0
const ADDRCONFIG_ADDRESS = '192.0.2.1/32'
const canRunCluster = process.getuid?.() === 0 && ['sbatch', 'slurmctld', 'slurmd', 'munged'].every(onPath)

describe.skipIf(!canRunCluster)('the real claude on a Slurm cluster', () => {
  const clusterTmp = mkdtempSync(path.join(os.tmpdir(), 'drover-agents-slurm-'))
  // munged runs as `munge` and must pass through to its folder inside
  chmodSync(clusterTmp, 0o711)
  const cluster = (command: string) =>
    spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'slurm-cluster.mjs'), command], {encoding: 'utf8', env: {...process.env, TMPDIR: clusterTmp}})
  let conf = ''
  let server: FakeModelServer
  let logDir: string
  let stateDir = ''

  beforeAll(async () => {
    spawnSync('ip', ['addr', 'add', ADDRCONFIG_ADDRESS, 'dev', 'lo'])
    const up = cluster('up')
    if (up.status !== 0) throw new Error(`the cluster did not come up: ${up.stderr}`)
    conf = up.stdout.trim()
    logDir = mkdtempSync(path.join(os.tmpdir(), 'drover-claude-slurm-log-'))
    server = await CLAUDE.startServer(logDir)
  }, 120_000)

  afterAll(async () => {
    if (stateDir) killProcessesOf(stateDir)
    spawnSync('scancel', ['-u', os.userInfo().username], {env: {...process.env, SLURM_CONF: conf}})
    cluster('down')
    await server?.stop()
    cleanupStateDirs()
    cleanupAgentDirs()
    if (logDir) rmSync(logDir, {recursive: true, force: true})
    rmSync(clusterTmp, {recursive: true, force: true})
    spawnSync('ip', ['addr', 'del', ADDRCONFIG_ADDRESS, 'dev', 'lo'])
  }, 60_000)

  it('drained mid-turn as a job, resumes its own conversation as a new job', async () => {
    stateDir = makeStateDir()
    const agentEnv = CLAUDE.env(server)
    const env = {...agentEnv, SLURM_CONF: conf, DROVER_EXECUTOR: 'slurm', DROVER_HEARTBEAT_MS: '500'}
    // A job gets HOME, PATH and a few more from the submitter, and the task's
    // -e values: the rest of the agent's set-up (its model server) goes as -e,
    // as a user's would.
    const passed = new Set(['HOME', 'PATH', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'])
    const values = Object.entries(agentEnv).flatMap(([key, value]) => (passed.has(key) ? [] : ['-e', `${key}=${value}`]))
    const work = agentTempDir('drover-work-')
    // 60 s of streaming: the drain lands mid-turn
    const started = await drover(stateDir, ['start', '--json', '--cwd', work, ...values, '--', ...CLAUDE.command('first prompt on the cluster [[slow: 60]]')], {env})
    expect(started.exitCode, started.stderr).toBe(0)
    const id = json(started).id as number
    await waitFor(() => server.modelRequests('first prompt on the cluster').length > 0, {timeout: 90_000, message: 'the first model request, from the node'})
    const sessionId = await waitFor(() => readTask(stateDir, id).agentInfo?.sessionId, {timeout: 30_000, message: 'a session id'})
    const first = readTask(stateDir, id)
    expect(first.executor).toBe('slurm')
    const firstJob = first.slurm.jobId

    const drained = await drover(stateDir, ['drain', String(id), '--grace', '1s', '--kill-after', '5s', '--json'], {env})
    expect(drained.exitCode, drained.stderr).toBe(0)
    expect(readTask(stateDir, id)).toMatchObject({status: 'drained', checkpoint: {profile: 'claude', sessionId}})

    const before = server.modelRequests().length
    const resumed = await drover(stateDir, ['resume', String(id), '--json'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    const ended = await waitFor(
      async () => {
        const status = json(await drover(stateDir, ['status', String(id), '--json'], {env}))
        return ['succeeded', 'failed', 'lost', 'stopped'].includes(status.status) ? status : null
      },
      {timeout: 120_000, interval: 500, message: 'the resumed run to end'},
    )
    expect(ended, JSON.stringify(ended)).toMatchObject({status: 'succeeded', run: 2, executor: 'slurm'})
    expect(ended.jobId).not.toBe(firstJob)
    expect(ended.agentInfo.sessionId).toBe(sessionId)
    // the new job's claude sent the earlier turn back, in the same session
    const later = server.modelRequests().slice(before)
    expect(later.length).toBeGreaterThanOrEqual(1)
    for (const request of later) expect(CLAUDE.sessionOf(request)).toBe(sessionId)
    expect(JSON.stringify(later[0].body)).toContain('first prompt on the cluster')
    server.assertNoUnexpected()
  }, 300_000)
})
