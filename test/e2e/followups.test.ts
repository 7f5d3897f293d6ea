// Follow-ups end to end with the fake agents first on PATH: prompts given to
// an agent at work are queued and delivered by its own runner, one run each,
// in order, in the same session (claude and codex); --now drains the run at a
// safe point for one; a stop drops them (recorded) except those kept, which
// the next plain resume delivers; the queue is listed and withdrawn from; a
// queue's slot stays with the task; a reboot keeps them for resume
// --interrupted; a program that is no agent takes no prompt.

import {existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, makeTempDir, readOutput, readTask, taskEvents, waitFor} from '../helpers/cli.js'

const FAKE_BIN = fixture('bin')

function agentEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {PATH: `${FAKE_BIN}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000', ...extra}
}

afterEach(cleanupStateDirs)

/** The one conversation a fake agent keeps under the fake home: its user messages in order (claude) or its runs' prompts (codex). */
function conversation(home: string, kind: 'claude' | 'codex'): any {
  const root = path.join(home, kind === 'claude' ? '.claude-fake' : '.codex-fake')
  const files = readdirSync(root, {recursive: true, withFileTypes: true}).filter((e) => e.isFile() && e.name.endsWith('.json'))
  expect(files).toHaveLength(1)
  return JSON.parse(readFileSync(path.join(files[0].parentPath, files[0].name), 'utf8'))
}

const CLAUDE = ['claude', '-p', 'build the thing', '--output-format', 'stream-json', '--verbose']

async function start(stateDir: string, env: Record<string, string>, args: string[]): Promise<number> {
  const r = await drover(stateDir, ['start', ...args], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  return Number(r.stdout.trim())
}

async function ok(stateDir: string, env: Record<string, string>, args: string[]) {
  const r = await drover(stateDir, args, {env})
  expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  return r
}

const waitRunning = (stateDir: string, id: number, run: number) =>
  waitFor(() => {
    const t = readTask(stateDir, id)
    return t.runs.length === run && t.status === 'running' && t.agentInfo?.sessionId ? t : null
  }, {timeout: 20_000, message: `task ${id}'s run ${run} running`})

describe('follow-ups queued for an agent at work', () => {
  it('claude: two follow-ups run one after the other in the same session, each prompt in status, the run headers and the JSON', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    // the first run goes on until the test says it is done; the follow-ups' runs end well at once
    const done = path.join(home, 'done')
    const env = agentEnv(home, {FAKE_AGENT_DONE_FILE: done})
    const id = await start(stateDir, env, ['--', ...CLAUDE])
    await waitRunning(stateDir, id, 1)
    const first = await ok(stateDir, env, ['resume', String(id), '--prompt', 'now add tests'])
    expect(first.stdout).toBe(`task ${id}: follow-up 1 queued for when run 1 ends (drover followups ${id} lists them)`)
    const second = json(await ok(stateDir, env, ['resume', String(id), '--prompt', 'then\nthe changelog', '--json']))
    expect(second).toMatchObject({resumed: [], refused: [], missing: [], queued: [{id, delivered: false, queued: {n: 2, prompt: 'then\nthe changelog', now: false, keep: false}}]})
    const listed = json(await ok(stateDir, env, ['followups', String(id), '--json']))
    expect(listed).toMatchObject({id, status: 'running', pending: [{n: 1, prompt: 'now add tests'}, {n: 2}], dropped: []})

    writeFileSync(done, '')
    // `wait` waits for the last run: a task with a follow-up to deliver has not ended
    await ok(stateDir, env, ['wait', String(id), '--timeout', '60s'])
    const task = readTask(stateDir, id)
    expect(task.status).toBe('succeeded')
    expect(task.runs.map((r: any) => [r.run, r.status, r.followup ?? null, r.prompt ?? null])).toEqual([
      [1, 'succeeded', null, null],
      [2, 'succeeded', 1, 'now add tests'],
      [3, 'succeeded', 2, 'then\nthe changelog'],
    ])
    // one conversation, told the three prompts in order
    const conv = conversation(home, 'claude')
    expect(conv.messages.filter((m: any) => m.role === 'user').map((m: any) => m.text)).toEqual(['build the thing', 'now add tests', 'then\nthe changelog'])
    expect(new Set(conv.runs.map((r: any) => r.resumed))).toEqual(new Set([false, true]))

    const status = (await ok(stateDir, env, ['status', String(id)])).stdout
    expect(status).toMatch(/^runs +#1 succeeded \(exit 0\); #2 follow-up 1 succeeded \(exit 0\); #3 follow-up 2 succeeded \(exit 0\)$/m)
    expect(status).toMatch(/^prompt #2 +now add tests$/m)
    expect(status).toMatch(/^prompt #3 +then the changelog$/m)
    const headers = readOutput(stateDir, id).split('\n').filter((l) => l.startsWith('── drover:'))
    expect(headers).toEqual([
      expect.stringMatching(/^── drover: run 2 \(follow-up 1\) started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d ──$/),
      '── drover: prompt: now add tests',
      expect.stringMatching(/^── drover: run 3 \(follow-up 2\) started /),
      '── drover: prompt: then the changelog',
    ])
    const pretty = (await ok(stateDir, env, ['logs', String(id), '--pretty'])).stdout
    expect(pretty).toContain('── drover: prompt: now add tests')
    // the runner delivered them itself: queued, the run's end, the follow-up, the next start
    const events = taskEvents(stateDir, id).map((e) => e.event)
    expect(events.filter((e) => e.startsWith('followup'))).toEqual(['followup-queued', 'followup-queued', 'followup', 'followup'])
    expect(existsSync(path.join(stateDir, 'tasks', String(id), 'followups', '000001.json'))).toBe(false)
  })

  it('codex: a follow-up continues the same thread', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home, {FAKE_AGENT_TURNS: '5'})
    const id = await start(stateDir, env, ['--', 'codex', 'exec', '--json', 'first task'])
    await waitRunning(stateDir, id, 1)
    await ok(stateDir, env, ['resume', String(id), '--prompt', 'second task'])
    await ok(stateDir, env, ['wait', String(id), '--timeout', '60s'])
    const task = readTask(stateDir, id)
    expect(task.runs.map((r: any) => [r.status, r.prompt ?? null])).toEqual([
      ['succeeded', null],
      ['succeeded', 'second task'],
    ])
    expect(task.runs[1].command).toEqual(expect.arrayContaining(['resume', task.agentInfo.sessionId, 'second task']))
    expect(conversation(home, 'codex').runs.map((r: any) => [r.prompt, r.resumed])).toEqual([
      ['first task', false],
      ['second task', true],
    ])
  })

  it('--now drains the run at a safe point for it, then resumes with it; a stop drops what is queued (recorded) but keeps --keep, which a plain resume delivers', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home)
    const id = await start(stateDir, env, ['--', ...CLAUDE])
    await waitRunning(stateDir, id, 1)
    const now = await ok(stateDir, env, ['resume', String(id), '--now', '--prompt', 'stop there and read the spec'])
    expect(now.stdout).toBe(`task ${id} resumed with follow-up 1 (run 2)`)
    let task = readTask(stateDir, id)
    // drover's hook refused the next tool call: claude ended its turn by itself
    expect(task.runs[0]).toMatchObject({status: 'drained', reason: 'drained to take a follow-up'})
    expect(task.runs[1]).toMatchObject({followup: 1, prompt: 'stop there and read the spec'})
    expect(['starting', 'running']).toContain(task.status)
    await waitRunning(stateDir, id, 2)

    await ok(stateDir, env, ['resume', String(id), '--prompt', 'dropped on a stop'])
    await ok(stateDir, env, ['resume', String(id), '--prompt', 'kept through it', '--keep'])
    await ok(stateDir, env, ['stop', String(id)])
    task = readTask(stateDir, id)
    expect(task.status).toBe('stopped')
    expect(task.droppedFollowups).toEqual([expect.objectContaining({n: 2, prompt: 'dropped on a stop', run: 2, reason: 'run 2 stopped by request'})])
    const listed = await ok(stateDir, env, ['followups', String(id)])
    expect(listed.stdout).toMatch(new RegExp(`^task ${id} \\(stopped\\): 1 follow-up queued, delivered in this order\\n +3 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +keep +kept through it\\ndropped:\\n +2 .* dropped on a stop\\n +run 2 stopped by request$`))
    const status = (await ok(stateDir, env, ['status', String(id)])).stdout
    expect(status).toMatch(/^follow-up 3 +queued .*, kept through a failure: kept through it$/m)
    expect(status).toMatch(/^dropped 2 +dropped on a stop \(run 2 stopped by request\)$/m)

    // a resume without a prompt gives the agent what it waits to be told
    const resumed = await ok(stateDir, env, ['resume', String(id)])
    expect(resumed.stdout).toBe(`task ${id} resumed (run 3)`)
    task = readTask(stateDir, id)
    expect(task.runs[2]).toMatchObject({followup: 3, prompt: 'kept through it'})
    expect(json(await ok(stateDir, env, ['followups', String(id), '--json'])).pending).toEqual([])
    await ok(stateDir, env, ['cancel', String(id)])
  })

  it('lists and withdraws: by number, all; a delivered or dropped one exits 4, one never queued 3, a word 2', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home)
    const id = await start(stateDir, env, ['--', ...CLAUDE])
    await waitRunning(stateDir, id, 1)
    for (const prompt of ['one', 'two', 'three']) await ok(stateDir, env, ['resume', String(id), '--prompt', prompt])
    const withdrawn = json(await ok(stateDir, env, ['followups', String(id), '--withdraw', '2', '--json']))
    expect(withdrawn).toMatchObject({id, withdrawn: [{n: 2, prompt: 'two'}], pending: [{n: 1}, {n: 3}]})
    const again = await drover(stateDir, ['followups', String(id), '--withdraw', '2'], {env})
    expect([again.exitCode, again.stderr]).toEqual([3, `drover: task ${id} has no follow-up 2 (drover followups ${id} lists them)`])
    const never = await drover(stateDir, ['followups', String(id), '--withdraw', '9', '--withdraw', '1'], {env})
    expect(never.exitCode).toBe(3)
    // nothing was withdrawn by the refused call
    expect(json(await ok(stateDir, env, ['followups', String(id), '--json'])).pending.map((f: any) => f.n)).toEqual([1, 3])
    const word = await drover(stateDir, ['followups', String(id), '--withdraw', 'two'], {env})
    expect([word.exitCode, word.stderr]).toEqual([2, "drover: --withdraw takes a follow-up's number (drover followups TASK lists them) or all, not 'two'"])
    const all = await ok(stateDir, env, ['followups', String(id), '--withdraw', 'all'])
    expect(all.stdout).toBe(`task ${id}: withdrew follow-ups 1, 3; 0 still queued`)
    await ok(stateDir, env, ['resume', String(id), '--prompt', 'last one'])
    await ok(stateDir, env, ['cancel', String(id)])
    // a cancel drops it; withdrawing it then is a conflict
    const dropped = await drover(stateDir, ['followups', String(id), '--withdraw', '4'], {env})
    expect([dropped.exitCode, dropped.stderr]).toEqual([4, `drover: task ${id}'s follow-up 4 was dropped: task ${id} was cancelled`])
    expect((await drover(stateDir, ['followups', String(id), '--withdraw', '4'], {env: {}})).exitCode).toBe(4)
  })

  it('a queued task takes a follow-up for after its first run; the follow-up run keeps the queue slot, so the next task waits', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home, {FAKE_AGENT_TURNS: '8'})
    const blocker = await start(stateDir, env, ['--queue', 'q', '--', 'sleep', '300'])
    const id = await start(stateDir, env, ['--queue', 'q', '--', ...CLAUDE])
    const behind = await start(stateDir, env, ['--queue', 'q', '--', 'sleep', '300'])
    expect(readTask(stateDir, id).status).toBe('queued')
    // nothing runs yet to drain: --now has nothing to stop, it waits for the first run's end like any other
    const queued = await ok(stateDir, env, ['resume', String(id), '--now', '--prompt', 'after the first'])
    expect(queued.stdout).toBe(`task ${id}: follow-up 1 queued for when run 1 ends (drover followups ${id} lists them)`)
    await ok(stateDir, env, ['cancel', String(blocker)])
    await waitRunning(stateDir, id, 2)
    expect(readTask(stateDir, behind).status).toBe('queued')
    await ok(stateDir, env, ['wait', String(id), '--timeout', '60s'])
    await waitFor(() => readTask(stateDir, behind).status === 'running', {timeout: 20_000, message: 'the task behind to get the slot'})
    await ok(stateDir, env, ['cancel', String(behind)])
  })

  it('survive a reboot: resume --interrupted continues the cut run, then the follow-up is delivered', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home, {FAKE_AGENT_TURNS: '12'})
    const id = await start(stateDir, env, ['--', ...CLAUDE])
    await waitRunning(stateDir, id, 1)
    await ok(stateDir, env, ['resume', String(id), '--prompt', 'after the reboot'])
    // the reboot: runner and worker die at once, with no chance to write anything
    const runner = JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(id), 'runner.json'), 'utf8'))
    const pids = [runner.pid, readTask(stateDir, id).worker.pid]
    for (const pid of pids) process.kill(pid, 'SIGKILL')
    await waitFor(() => pids.every((pid) => !isAlive(pid)), {timeout: 10_000, message: 'everything dead'})
    const list = json<any[]>(await ok(stateDir, env, ['list', '--json']))
    expect(list.find((t) => t.id === id).status).toBe('lost')
    expect(json(await ok(stateDir, env, ['followups', String(id), '--json'])).pending.map((f: any) => f.prompt)).toEqual(['after the reboot'])

    await ok(stateDir, env, ['resume', '--interrupted'])
    await waitFor(() => readTask(stateDir, id).runs.length === 3, {timeout: 60_000, message: 'the follow-up run'})
    await ok(stateDir, env, ['wait', String(id), '--timeout', '60s'])
    const task = readTask(stateDir, id)
    expect(task.runs.map((r: any) => [r.status, r.prompt ?? null])).toEqual([
      ['lost', null],
      ['succeeded', 'Continue from where you left off.'],
      ['succeeded', 'after the reboot'],
    ])
  })

  it('a reboot between a follow-up\'s delivery and its worker: resume --interrupted tells the agent that follow-up, not "continue"', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home, {FAKE_AGENT_TURNS: '2'})
    const id = await start(stateDir, env, ['--', ...CLAUDE])
    await ok(stateDir, env, ['wait', String(id), '--timeout', '60s'])
    // what the runner leaves when the machine goes down right after opening the follow-up's run: the
    // run `starting` with its prompt, the follow-up's file gone, runner.json naming a process that is no more
    const file = path.join(stateDir, 'tasks', String(id), 'task.json')
    const ended = readTask(stateDir, id)
    const opened = {...ended.runs[0], run: 2, status: 'starting', startedAt: null, endedAt: null, exitCode: null, reason: null, cause: null, resumed: true, prompt: 'told after all', followup: 1, outputOffset: null}
    writeFileSync(file, JSON.stringify({...ended, status: 'starting', reason: null, cause: null, endedAt: null, startedAt: null, worker: null, runs: [ended.runs[0], opened]}))
    writeFileSync(path.join(stateDir, 'tasks', String(id), 'runner.json'), JSON.stringify({pid: process.pid, startTime: 'not this process'}))
    await ok(stateDir, env, ['resume', '--interrupted'])
    await ok(stateDir, env, ['wait', String(id), '--timeout', '60s'])
    const task = readTask(stateDir, id)
    expect(task.runs.map((r: any) => [r.status, r.prompt ?? null, r.followup ?? null])).toEqual([
      ['succeeded', null, null],
      ['lost', 'told after all', 1],
      ['succeeded', 'told after all', 1],
    ])
    expect(conversation(home, 'claude').messages.filter((m: any) => m.role === 'user').map((m: any) => m.text)).toEqual(['build the thing', 'told after all'])
  })

  it('a program that is no agent takes no prompt: exit 2, nothing queued or written', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home)
    const id = await start(stateDir, env, ['--', 'sleep', '300'])
    const before = readFileSync(path.join(stateDir, 'tasks', String(id), 'task.json'), 'utf8')
    const r = await drover(stateDir, ['resume', String(id), '--prompt', 'do more'], {env})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toBe(`drover: task ${id} runs no agent drover can continue (generic), so it takes no prompt: \`drover resume ${id}\` runs its command again with DROVER_RESUME=1`)
    expect(existsSync(path.join(stateDir, 'tasks', String(id), 'followups'))).toBe(false)
    expect(readFileSync(path.join(stateDir, 'tasks', String(id), 'task.json'), 'utf8')).toBe(before)
    // without a prompt, a running task is refused as before, and an agent is told how to queue one
    expect((await drover(stateDir, ['resume', String(id)], {env})).exitCode).toBe(4)
    const now = await drover(stateDir, ['resume', String(id), '--now'], {env})
    expect([now.exitCode, now.stderr]).toEqual([2, expect.stringContaining('--now')])
    await ok(stateDir, env, ['cancel', String(id)])
    rmSync(home, {recursive: true, force: true})
  })
})
