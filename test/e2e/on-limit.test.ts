// `start --on-limit wait` with the fake claude at its usage limit (the events
// the real claude prints): the task is `waiting` until the reset time its
// stream names, then its runner resumes the same conversation; stop, cancel
// and drain end the wait; resume cuts it short.

import {readFileSync, rmSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {makeTempDir, cleanupStateDirs, drover, fixture, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

/** The fake claude on PATH, at its usage limit while `limit` exists (holding the reset time). */
function agentEnv(): {env: Record<string, string>; limit: string} {
  const bin = makeTempDir('drover-bin-')
  writeFileSync(path.join(bin, 'claude'), `#!/usr/bin/env node\nimport(${JSON.stringify(fixture('agent-claude.mjs'))})\n`, {mode: 0o755})
  const limit = path.join(makeTempDir('drover-limit-'), 'limit')
  const env = {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: makeTempDir('drover-home-'), FAKE_AGENT_TURN_MS: '50', FAKE_AGENT_TURNS: '2', FAKE_CLAUDE_LIMIT_FILE: limit}
  return {env, limit}
}

const CLAUDE = ['claude', '-p', 'count', '--output-format', 'stream-json', '--verbose']

async function startLimited(dir: string, env: Record<string, string>, limit: string, resetsInS: number): Promise<number> {
  // A first run gets a session; the second hits the limit.
  rmSync(limit, {force: true})
  const r = await drover(dir, ['start', '--on-limit', 'wait', '--', ...CLAUDE], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  const id = Number(r.stdout)
  await waitFor(() => readTask(dir, id).status === 'succeeded', {message: 'first run'})
  writeFileSync(limit, String(Math.floor(Date.now() / 1000) + resetsInS))
  expect((await drover(dir, ['resume', String(id)], {env})).exitCode).toBe(0)
  await waitFor(() => readTask(dir, id).status === 'waiting', {timeout: 20_000, message: 'waiting'})
  return id
}

describe('--on-limit wait', () => {
  it('waits until the reset time, then resumes its own conversation by itself', async () => {
    const dir = makeStateDir()
    const {env, limit} = agentEnv()
    const id = await startLimited(dir, env, limit, 2)
    const waiting = readTask(dir, id)
    expect(waiting).toMatchObject({status: 'waiting', desired: 'running', limitWaits: 1})
    expect(waiting.reason).toMatch(/^exit 1: usage limit, resets .*; waiting until /)
    expect(Date.parse(waiting.waitUntil)).toBeGreaterThan(Date.now())
    const status = await drover(dir, ['status', String(id)], {env})
    expect(status.stdout).toMatch(/status +waiting/)
    expect(status.stdout).toMatch(/resumes +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in \d+s\)/)
    expect(json(await drover(dir, ['status', String(id), '--json'], {env})).waitUntil).toBe(waiting.waitUntil)
    unlinkSync(limit)
    const done = await waitFor(() => readTask(dir, id).runs.length === 3 && readTask(dir, id).status === 'succeeded' && readTask(dir, id), {timeout: 40_000, message: 'resumed and done'})
    expect(done.runs[2].resumed).toBe(true)
    expect(done.runs[2].command).toContain(waiting.agentInfo.sessionId)
    expect(done.limitWaits).toBe(0)
    expect(done.waitUntil ?? null).toBeNull()
  })

  it('cancel, stop and drain end the wait; resume cuts it short', async () => {
    const dir = makeStateDir()
    const {env, limit} = agentEnv()
    const cancelled = await startLimited(dir, env, limit, 3600)
    const c = await drover(dir, ['cancel', String(cancelled)], {env})
    expect(c.exitCode, c.stderr).toBe(0)
    expect(readTask(dir, cancelled)).toMatchObject({status: 'cancelled', desired: 'stopped', reason: 'cancelled by request while waiting for a usage limit'})

    const stopped = await startLimited(dir, env, limit, 3600)
    expect((await drover(dir, ['stop', String(stopped)], {env})).exitCode).toBe(0)
    expect(readTask(dir, stopped)).toMatchObject({status: 'stopped', desired: 'stopped'})

    const drained = await startLimited(dir, env, limit, 3600)
    expect((await drover(dir, ['drain', String(drained)], {env})).exitCode).toBe(0)
    expect(readTask(dir, drained)).toMatchObject({status: 'drained', desired: 'running', checkpoint: {mode: 'cooperative'}})

    const resumed = await startLimited(dir, env, limit, 3600)
    unlinkSync(limit)
    const r = await drover(dir, ['resume', String(resumed)], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    await waitFor(() => readTask(dir, resumed).status === 'succeeded' && readTask(dir, resumed).runs.length === 3, {timeout: 20_000, message: 'resumed now'})
    // the waiting runner saw the new run and left the record alone
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(readTask(dir, resumed).status).toBe('succeeded')
  })

  it('a shutdown while waiting leaves it lost and meant to run: resume --interrupted brings it back, and it waits again', async () => {
    const dir = makeStateDir()
    const {env, limit} = agentEnv()
    const id = await startLimited(dir, env, limit, 3600)
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(id), 'runner.json'), 'utf8')).pid
    process.kill(runner, 'SIGTERM')
    await waitFor(() => readTask(dir, id).status === 'lost', {message: 'lost'})
    expect(readTask(dir, id).desired).toBe('running')
    expect((await drover(dir, ['resume', '--interrupted'], {env})).exitCode).toBe(0)
    await waitFor(() => readTask(dir, id).status === 'waiting' && readTask(dir, id).runs.length === 3, {timeout: 20_000, message: 'waiting again'})
    expect(readTask(dir, id).limitWaits).toBe(2)
  })

  it('refused for a job that is not an agent (exit 2)', async () => {
    const dir = makeStateDir()
    expect((await drover(dir, ['start', '--on-limit', 'wait', '--', 'true'])).exitCode).toBe(2)
  })
})
