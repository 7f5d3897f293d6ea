// `drover top`'s keys for follow-ups and attach, in a real terminal (tmux)
// against the fake claude: f queues a follow-up (refused before typing for a
// task that runs no agent), F sends one now and the preview shows the next
// run told it, and t takes the agent over — top leaves the alternate screen
// for the interactive session and comes back when it ends.

import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, json, makeStateDir, readTask, startFakeClaude, startOk, waitFor} from '../helpers/cli.js'
import {openTop, type TopSession} from '../helpers/tmux.js'

const sessions: TopSession[] = []
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill()
  cleanupStateDirs()
})

function top(stateDir: string): TopSession {
  const session = openTop(stateDir, [], {width: 140, height: 36})
  sessions.push(session)
  return session
}

const rowOf = (screen: string, id: number) => screen.split('\n').find((line) => new RegExp(`^[> ] +${id}  `).test(line)) ?? ''
const footer = (screen: string) => screen.replace(/\n+$/, '').split('\n').at(-1)!

async function agent(stateDir: string): Promise<number> {
  const id = await startFakeClaude(stateDir, 100_000)
  await waitFor(() => readTask(stateDir, id).agentInfo?.sessionId, {timeout: 20_000, message: 'the session id'})
  return id
}

describe('drover top: follow-ups and attach', () => {
  it('f queues a follow-up for the agent at work; F sends one now, and the preview shows what the next run was told', async () => {
    const stateDir = makeStateDir()
    const id = await agent(stateDir)
    const t = top(stateDir)
    await t.waitFor((s) => /agent +running/.test(rowOf(s, id)))
    t.keys('f')
    await t.waitFor(/follow-up \(Enter: send, Esc: back\):/)
    // an empty follow-up is no follow-up
    t.keys('Enter')
    await t.waitFor((s) => footer(s).includes('not sent: a follow-up needs some text'))
    t.keys('f')
    await t.waitFor(/follow-up \(Enter: send, Esc: back\):/)
    t.type('write the tests')
    t.keys('Enter')
    await t.waitFor(/send a follow-up to task 1 \(agent\) with "write the tests"\? \(y\/n\)/)
    t.keys('y')
    let screen = await t.waitFor((s) => /follow-up 1 queued for when run 1 ends/.test(footer(s)))
    expect(json(await drover(stateDir, ['followups', String(id), '--json'])).pending.map((f: any) => f.prompt)).toEqual(['write the tests'])

    t.keys('F')
    await t.waitFor(/follow-up now, the run drained for it \(Enter: send, Esc: back\):/)
    t.type('read the spec first')
    t.keys('Enter')
    await t.waitFor(/send a follow-up now \(drained at a safe point\) to task 1 \(agent\) with "read the spec first"\? \(y\/n\)/)
    t.keys('y')
    await waitFor(() => readTask(stateDir, id).runs.length === 2, {timeout: 30_000, message: 'the follow-up run'})
    expect(readTask(stateDir, id).runs[1]).toMatchObject({followup: 2, prompt: 'read the spec first'})
    // the preview follows the new run: its header and what it was told
    screen = await t.waitFor(/── drover: prompt: read the spec first/, 20_000)
    expect(screen).toMatch(/── drover: run 2 \(follow-up 2\) started /)
    await drover(stateDir, ['cancel', String(id)])
  })

  it('f on a task that runs no agent says so before a word is typed', async () => {
    const stateDir = makeStateDir()
    const id = await startOk(stateDir, ['--name', 'plain', '--', 'sleep', '300'])
    const t = top(stateDir)
    await t.waitFor((s) => /plain +running/.test(rowOf(s, id)))
    t.keys('f')
    await t.waitFor((s) => footer(s).includes(`task ${id} runs no agent: follow-ups are for agents`))
    t.keys('t')
    await t.waitFor((s) => footer(s).includes(`task ${id} runs no agent: there is no session to take over`))
    await drover(stateDir, ['cancel', String(id)])
  })

  it('t takes the agent over: top steps aside for its interactive session and comes back when it ends', async () => {
    const stateDir = makeStateDir()
    const id = await agent(stateDir)
    const t = top(stateDir)
    await t.waitFor((s) => /agent +running/.test(rowOf(s, id)))
    expect(t.format('#{alternate_on}')).toBe('1')
    t.keys('t')
    await t.waitFor(/take over in this terminal task 1 \(agent\)\? \(y\/n\)/)
    t.keys('y')
    await t.waitFor(/fake claude interactive/, 60_000)
    expect(t.format('#{alternate_on}')).toBe('0')
    expect(readTask(stateDir, id).runs[1]).toMatchObject({attached: true, status: 'running'})
    t.type('hello from top')
    t.keys('Enter')
    await t.waitFor(/working on "hello from top"/)
    t.type('/exit')
    t.keys('Enter')
    const screen = await t.waitFor((s) => /the attached session ended succeeded/.test(footer(s)), 20_000)
    expect(t.format('#{alternate_on}')).toBe('1')
    expect(screen).toMatch(/^drover top · /)
    expect(readTask(stateDir, id).runs[1]).toMatchObject({attached: true, status: 'succeeded'})
    // top is itself again: keys work
    t.keys('q')
    await t.waitFor(/TOP-EXIT 0/)
  })
})
