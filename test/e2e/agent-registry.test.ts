// Adding an agent is its module and one registry line: `testbot`, an agent
// drover does not ship (test/fixtures/testbot.ts, registered there), is
// detected from its program's name and goes through start, drain and resume
// with real processes — its session read from its events, drained at a safe
// point, continued with its own --resume and every other flag kept — with
// nothing else in drover naming it.
//
// Why through the library from sources rather than the built CLI: the agent
// must be known in every process that handles the task — this one (the API:
// start, drain, resume) and the runner it spawns — and the built CLI and its
// runner bundle hold exactly the agents drover ships, as they should: nothing
// in a production path loads an agent from outside. Run from sources, the
// library starts its runner from sources too (runnerEntry: src/runner/main.ts
// under tsx), and the one registration reaches it as a preload
// (NODE_OPTIONS=--import register-testbot.mjs), as other tests preload
// fixtures into runners.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {openStateDir} from '../../src/api/index.js'
import {AGENT_NAMES, profileOf} from '../../src/agents/registry.js'
import {cleanupStateDirs, fixture, makeStateDir, makeTempDir, readOutput, readTask, waitFor} from '../helpers/cli.js'
import '../fixtures/testbot.js'

const saved = process.env.NODE_OPTIONS

beforeAll(() => {
  process.env.NODE_OPTIONS = `${saved ?? ''} --import ${pathToFileURL(fixture('register-testbot.mjs')).href}`.trim()
})

afterAll(() => {
  if (saved === undefined) delete process.env.NODE_OPTIONS
  else process.env.NODE_OPTIONS = saved
})

afterEach(() => cleanupStateDirs())

const sessionFile = (home: string, id: string) => JSON.parse(readFileSync(path.join(home, '.testbot', `${id}.json`), 'utf8'))

describe('an agent added by its module and one registry line', () => {
  it('is offered by name, detected, drained at a safe point and resumed in its own session', async () => {
    expect(AGENT_NAMES).toContain('testbot')
    expect(AGENT_NAMES.at(-1)).toBe('generic')
    expect(profileOf('testbot')?.title).toBe("drover's test agent")

    const home = makeTempDir('drover-testbot-home-')
    const drover = await openStateDir(makeStateDir())
    const program = fixture(path.join('bin', 'drover-testbot'))
    const started = await drover.start({
      command: [program, '--model', 'm1', 'count'],
      env: {HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'},
    })
    const id = started.id
    expect(started).toMatchObject({status: 'running', agent: 'testbot'})

    // the runner read its events: the session it named, its turns
    const working = await waitFor(
      async () => {
        const task = await drover.get(id)
        return task.agentInfo?.sessionId && task.agentInfo.turns >= 2 ? task : null
      },
      {timeout: 30_000, message: "the runner reading the agent's session and turns"},
    )
    const sessionId = working.agentInfo!.sessionId!
    expect(sessionFile(home, sessionId).turns).toBeGreaterThanOrEqual(1)

    // no hook to cooperate with: drained by a signal between two tool calls
    // a grace a loaded machine needs: 10 s ran out before the next tool call once (a forced drain)
    const drained = await drover.drain(id, {graceMs: 30_000, wait: true})
    expect(drained).toMatchObject({id, status: 'drained'})
    const record = readTask(drover.stateDir, id)
    expect(record.checkpoint).toMatchObject({profile: 'testbot', sessionId, mode: 'safe-point'})
    const turnsAtDrain = sessionFile(home, sessionId).turns

    // its own --resume with the new prompt; --model kept, the old prompt not
    const resumed = await drover.resume(id, {prompt: 'carry on'})
    expect(resumed.status).toBe('running')
    const run = readTask(drover.stateDir, id).runs.at(-1)
    expect(run).toMatchObject({run: 2, resumed: true, command: [program, '--model', 'm1', '--resume', sessionId, 'carry on']})
    await waitFor(() => sessionFile(home, sessionId).turns > turnsAtDrain, {timeout: 30_000, message: 'the resumed session taking turns'})
    const session = sessionFile(home, sessionId)
    expect(session.prompts).toEqual(['count', 'carry on'])
    expect(session.runs.map((r: any) => [r.model, r.resumed])).toEqual([
      ['m1', false],
      ['m1', true],
    ])
    expect(readOutput(drover.stateDir, id)).toContain(`"resumed":true`)

    const stopped = await drover.stop(id, {wait: true})
    expect(stopped.status).toBe('stopped')
  }, 120_000)
})
