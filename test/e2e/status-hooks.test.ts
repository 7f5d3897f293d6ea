// Status hooks end to end: `start --on-status` and the state dir's
// hooks/on-status hear of every change of status — queued, starting, running,
// stopping, waiting on a usage limit, each end, a retry's queued attempt, lost
// — in order, each with the record as that change left it on stdin and
// DROVER_STATUS, DROVER_PREV_STATUS, DROVER_REASON, DROVER_CAUSE set; a
// failing hook is shown by status; a change whose supervisor never started is
// told by the next command.

import {chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, makeTempDir, readTask, startOk, taskEvents, waitFor} from '../helpers/cli.js'
import {noteStatusChange} from '../../src/state/status-changes.js'

vi.setConfig({testTimeout: 120_000})
afterEach(() => cleanupStateDirs())

// One line per change: PREV>STATUS, the status of the record on stdin, the reason.
const HOOK = 'printf "%s>%s %s %s\\n" "$DROVER_PREV_STATUS" "$DROVER_STATUS" "$(node -e \'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>console.log(JSON.parse(s).status))\')" "$DROVER_CAUSE" >> "$DROVER_STATE_DIR/changes-$DROVER_TASK_ID"'

const told = (dir: string, id: number): string[] => {
  const file = path.join(dir, `changes-${id}`)
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []
}

/** Waits until the hook has heard of `count` changes, and returns them. */
const toldAll = (dir: string, id: number, count: number, message: string) => waitFor(() => told(dir, id).length >= count && told(dir, id), {timeout: 30_000, message})

describe('status hooks', () => {
  it('hear of every change of a queued task that runs and is stopped, in order, with the record as each change left it', async () => {
    const dir = makeStateDir()
    const blocker = await startOk(dir, ['--queue', 'one', '--', 'sleep', '30'])
    const id = await startOk(dir, ['--queue', 'one', '--on-status', HOOK, '--', 'sleep', '30'])
    await toldAll(dir, id, 1, 'queued')
    expect((await drover(dir, ['cancel', String(blocker)])).exitCode).toBe(0)
    await waitFor(() => readTask(dir, id).status === 'running', {message: 'running'})
    expect((await drover(dir, ['stop', String(id)])).exitCode).toBe(0)
    // the record on stdin says what DROVER_STATUS says: each hook sees its own change, not the task as it is by then
    expect(await toldAll(dir, id, 5, 'five changes')).toEqual(['>queued queued ', 'queued>starting starting ', 'starting>running running ', 'running>stopping stopping ', 'stopping>stopped stopped stop'])
    expect(taskEvents(dir, id).filter((e) => e.event === 'hook').map((e) => e.status)).toEqual(['queued', 'starting', 'running', 'stopping', 'stopped'])
  })

  it("the state dir's hooks/on-status hears of every task; a failed attempt, its retry and a lost run are changes too", async () => {
    const dir = makeStateDir()
    mkdirSync(path.join(dir, 'hooks'))
    const shared = path.join(dir, 'hooks', 'on-status')
    writeFileSync(shared, `#!/bin/sh\n${HOOK}\n`)
    chmodSync(shared, 0o700)
    const retried = await startOk(dir, ['--retry', '1', '--retry-delay', '0s', '--', 'sh', '-c', 'exit 1'])
    expect(await toldAll(dir, retried, 7, 'both attempts')).toEqual([
      '>starting starting ',
      'starting>running running ',
      'running>failed failed exit',
      'failed>queued queued ',
      'queued>starting starting ',
      'starting>running running ',
      'running>failed failed exit',
    ])

    // a runner and worker killed outright: the next command finds the task lost, and tells the hooks
    const lost = await startOk(dir, ['--', 'sleep', '30'])
    await toldAll(dir, lost, 2, 'running')
    const task = readTask(dir, lost)
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(lost), 'runner.json'), 'utf8')).pid
    process.kill(runner, 'SIGKILL')
    process.kill(-task.worker.pid, 'SIGKILL')
    await waitFor(async () => (await drover(dir, ['list', '--json'])).stdout.includes('"lost"'), {message: 'lost'})
    expect((await toldAll(dir, lost, 3, 'lost'))[2]).toBe('running>lost lost runner-lost')
  })

  it('running, then waiting on a usage limit (cause usage-limit), then drained while waiting', async () => {
    const dir = makeStateDir()
    const bin = makeTempDir('drover-bin-')
    writeFileSync(path.join(bin, 'claude'), `#!/usr/bin/env node\nimport(${JSON.stringify(fixture('agent-claude.mjs'))})\n`, {mode: 0o755})
    const limit = path.join(makeTempDir('drover-limit-'), 'limit')
    writeFileSync(limit, String(Math.floor(Date.now() / 1000) + 3600))
    const env = {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: makeTempDir('drover-home-'), FAKE_AGENT_TURN_MS: '50', FAKE_AGENT_TURNS: '2', FAKE_CLAUDE_LIMIT_FILE: limit}
    const r = await drover(dir, ['start', '--on-limit', 'wait', '--on-status', HOOK, '--', 'claude', '-p', 'count', '--output-format', 'stream-json', '--verbose'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const id = Number(r.stdout)
    await waitFor(() => readTask(dir, id).status === 'waiting', {timeout: 20_000, message: 'waiting'})
    expect(await toldAll(dir, id, 3, 'waiting')).toEqual(['>starting starting ', 'starting>running running ', 'running>waiting waiting usage-limit'])
    expect((await drover(dir, ['drain', String(id)], {env})).exitCode).toBe(0)
    expect((await toldAll(dir, id, 4, 'drained'))[3]).toBe('waiting>drained drained drain')
  })

  it('a hook that fails is shown by status with the change it was for; hooks never delay the task', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--on-status', 'sleep 1; test "$DROVER_STATUS" != running', '--', 'true'])
    // the task ends long before its hooks do: they run after it, one change after the other
    await waitFor(() => readTask(dir, id).status === 'succeeded', {message: 'ended'})
    expect(taskEvents(dir, id).filter((e) => e.event === 'hook' || e.event === 'hook-failed')).toHaveLength(0)
    await waitFor(() => taskEvents(dir, id).filter((e) => e.event === 'hook' || e.event === 'hook-failed').length === 3, {timeout: 30_000, message: 'three hooks'})
    const detail = json(await drover(dir, ['status', String(id), '--json']))
    expect(detail.hookFailures).toEqual([{run: 1, hook: 'on-status', status: 'running', reason: null, exitCode: 1, signal: null}])
    expect(detail.onStatus).toBe('sleep 1; test "$DROVER_STATUS" != running')
    expect((await drover(dir, ['status', String(id)])).stdout).toMatch(/hook failed +on-status \(run 1, at running\): exit 1; output in hooks.log/)
  })

  it('a change noted with no supervisor started (its writer killed first) is told by the next command, once', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--on-status', HOOK, '--', 'true'])
    await toldAll(dir, id, 3, 'the run')
    // what a writer killed between its record and the spawn leaves: a change noted, told to nobody
    const record = readTask(dir, id)
    expect(noteStatusChange(dir, 'running', {...record, status: 'failed', cause: 'exit', reason: 'by hand'})).toBe(true)
    await drover(dir, ['list'])
    expect((await toldAll(dir, id, 4, 'the untold change'))[3]).toBe('running>failed failed exit')
    await drover(dir, ['list'])
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(told(dir, id)).toHaveLength(4)
  })

  it("a follow-up's run is a run like any other: the hooks hear run 1 end, then run 2 start and run; a stop drops the next one, recorded", async () => {
    const dir = makeStateDir()
    const home = makeTempDir('drover-home-')
    // the first run goes on until the done file exists; the follow-up's run then ends well at once
    const done = path.join(home, 'done')
    const env = {PATH: `${fixture('bin')}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000', FAKE_AGENT_DONE_FILE: done}
    // each line: the run, the change, and the record on stdin as that change left it: its runs, the last one's prompt, the follow-ups dropped
    const record = 'const r=JSON.parse(s);console.log(r.runs.length+":"+(r.runs.at(-1).prompt??"")+":"+(r.droppedFollowups??[]).length)'
    const runHook = `printf "%s %s>%s %s\\n" "$DROVER_RUN" "$DROVER_PREV_STATUS" "$DROVER_STATUS" "$(node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>{${record}})')" >> "$DROVER_STATE_DIR/changes-$DROVER_TASK_ID"`
    const started = await drover(dir, ['start', '--on-status', runHook, '--', 'claude', '-p', 'build the thing', '--output-format', 'stream-json', '--verbose'], {env})
    expect(started.exitCode, started.stderr).toBe(0)
    const id = Number(started.stdout)
    await waitFor(() => readTask(dir, id).agentInfo?.sessionId, {timeout: 20_000, message: 'run 1 at work'})
    const queued = await drover(dir, ['resume', String(id), '--prompt', 'now add tests'], {env})
    expect(queued.stdout, queued.stderr).toContain('follow-up 1 queued')
    writeFileSync(done, '')
    await waitFor(() => {
      const task = readTask(dir, id)
      return task.runs.length === 2 && task.status === 'succeeded'
    }, {timeout: 60_000, message: "the follow-up's run ended"})
    expect(await toldAll(dir, id, 6, 'both runs')).toEqual([
      '1 >starting 1::0',
      '1 starting>running 1::0',
      '1 running>succeeded 1::0',
      '2 succeeded>starting 2:now add tests:0',
      '2 starting>running 2:now add tests:0',
      '2 running>succeeded 2:now add tests:0',
    ])
    expect(readTask(dir, id).runs.map((r: any) => [r.status, r.followup ?? null])).toEqual([['succeeded', null], ['succeeded', 1]])

    // a run stopped with a follow-up queued: the hooks hear the stop, with the drop on the record; no run is opened for it
    rmSync(done)
    expect((await drover(dir, ['resume', String(id), '--prompt', 'keep going'], {env})).exitCode).toBe(0)
    await waitFor(() => {
      const task = readTask(dir, id)
      return task.runs.length === 3 && task.status === 'running' && task.agentInfo?.sessionId
    }, {timeout: 20_000, message: 'run 3 at work'})
    expect((await drover(dir, ['resume', String(id), '--prompt', 'never told'], {env})).stdout).toContain('follow-up 2 queued')
    expect((await drover(dir, ['stop', String(id)], {env})).exitCode).toBe(0)
    expect((await toldAll(dir, id, 10, 'the stop')).slice(6)).toEqual([
      '3 succeeded>starting 3:keep going:0',
      '3 starting>running 3:keep going:0',
      '3 running>stopping 3:keep going:0',
      '3 stopping>stopped 3:keep going:1',
    ])
    const task = readTask(dir, id)
    expect(task.runs).toHaveLength(3)
    expect(task.droppedFollowups).toEqual([expect.objectContaining({n: 2, prompt: 'never told', run: 3, reason: 'run 3 stopped by request'})])
    expect(taskEvents(dir, id).filter((e) => e.event === 'followup-dropped')).toEqual([expect.objectContaining({run: 3, followup: 2})])
    expect(taskEvents(dir, id).filter((e) => e.event === 'hook').map((e) => e.status)).toEqual(told(dir, id).map((line) => line.split(/[> ]/)[2]))
  })

  it('refuses an empty --on-status (exit 2) with nothing written', async () => {
    const dir = makeStateDir()
    const r = await drover(dir, ['start', '--on-status', ' ', '--', 'true'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--on-status needs a non-empty command/)
    expect(existsSync(path.join(dir, 'tasks', '1'))).toBe(false)
    rmSync(dir, {recursive: true, force: true})
  })
})
