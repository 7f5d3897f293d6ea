// `drover attach` with the real claude, codex and copilot in a terminal
// (tmux), against the fake model servers: a working agent is drained, its own
// interactive mode opens on the same session (the model is sent the earlier
// turns with what the person types), the run is recorded as attached, and
// `drover resume` sends the task back to the background with the terminal's
// turns in its conversation. gemini, qwen and opencode are left out: offline
// here, gemini's interface drew nothing and sent nothing in 15 s, qwen's stayed
// at "Initializing…", and opencode's headless run had not named its session
// after 30 s, so its interface was never reached (their command lines are
// unit-tested, test/agents/interactive.test.ts).

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, drover, readTask, waitFor} from '../helpers/cli.js'
import {openPane, type Pane} from '../helpers/tmux.js'
import {agentTempDir} from './harness/env.js'
import {CLAUDE, CODEX, COPILOT, type RealAgent} from './harness/real-agents.js'
import {lastUserText, sessionIdOf, sessionSaved, settled, start, stateDir, useFakeServers, waitForRequest} from './harness/tasks.js'

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** What the person at the terminal does with each agent's own interface. */
interface Driver {
  /** what a first run of its interface needs in HOME (claude: onboarding done, the key approved, the folder trusted). */
  prepare?: (home: string, work: string, env: Record<string, string>) => void
  /** the screen when it waits for a message. */
  ready: RegExp
  /** the screen while a turn is under way: the reply shows before it ends, and a message typed then is queued, not run. */
  busy: RegExp
  /** dialogs it may show first, and the keys that answer them (a new model offered, a folder to trust). */
  dialogs: {shows: RegExp; keys: (screen: string) => string[]}[]
  quit: string
}

const DRIVERS: Record<string, Driver> = {
  claude: {
    prepare: (home, work, env) =>
      writeFileSync(
        path.join(home, '.claude.json'),
        JSON.stringify({hasCompletedOnboarding: true, customApiKeyResponses: {approved: [env.ANTHROPIC_API_KEY.slice(-20)], rejected: []}, projects: {[work]: {hasTrustDialogAccepted: true}}}),
      ),
    ready: /^❯\s*$/m,
    busy: /esc to interrupt/,
    dialogs: [],
    quit: '/exit',
  },
  codex: {
    ready: /Ask Codex to do anything/,
    busy: /esc to interrupt/,
    // "Use existing model": the fake server knows no other
    // (from where the cursor is: a Down taken before, with its Enter lost, has moved it there already)
    dialogs: [{shows: /2\. Use existing model/, keys: (screen) => (/›\s*2\. Use existing model/.test(screen) ? ['Enter'] : ['Down', 'Enter'])}],
    quit: '/quit',
  },
  copilot: {
    ready: /^❯\s*$/m,
    busy: /esc esc interrupt/,
    dialogs: [
      {shows: /Do you trust the files in this folder\?/, keys: () => ['Enter']},
      // copilot judges a session "in use" by how recently it was written, not by a live process: an
      // attach a moment after the drain (whose headless copilot is gone) is asked, and a person resumes
      {shows: /Session in use[\s\S]*Resume anyway/, keys: (screen) => (/❯\s*1\. Resume anyway/.test(screen) ? ['Enter'] : ['Up', 'Enter'])},
    ],
    quit: '/exit',
  },
}

const AGENTS = [CLAUDE, CODEX, COPILOT]
const serverOf = useFakeServers(AGENTS)

/** A terminal with job control running `drover attach ID`, as a person's shell runs it. */
function attachIn(dir: string, env: Record<string, string>, id: number): Pane {
  const exports = Object.entries({...env, DROVER_STATE_DIR: dir, TERM: 'xterm-256color'})
    .map(([k, v]) => `${k}=${sh(v)}`)
    .join(' ')
  // a short drain: the agent is in the middle of a long reply, which it would otherwise be given a minute to finish
  return openPane('attach', ['bash', '-c', `set -m; env ${exports} ${sh(process.execPath)} ${sh(BIN)} attach ${id} --grace 3s; echo "ATTACH-EXIT $?"; sleep 600`], {width: 140, height: 45})
}

/**
 * Waits until the interface shows `history` and waits for a message, its
 * turn over — for a second look too, so a first frame drawn before a dialog
 * does not count — answering its dialogs on the way, again if one stays.
 */
async function untilReady(pane: Pane, driver: Driver, history: string): Promise<void> {
  // when each dialog was last answered: one still shown 3 s after is answered
  // again (keys sent while it was drawn, before it took input, are lost)
  const answered = new Map<number, number>()
  let readySince = 0
  await pane.waitFor((screen) => {
    const dialog = driver.dialogs.findIndex((d, i) => Date.now() - (answered.get(i) ?? 0) >= 3000 && d.shows.test(screen))
    if (dialog !== -1) {
      answered.set(dialog, Date.now())
      for (const key of driver.dialogs[dialog].keys(screen)) pane.keys(key)
      readySince = 0
      return false
    }
    const ready = screen.includes(history) && driver.ready.test(screen) && !driver.busy.test(screen) && !driver.dialogs.some((d) => d.shows.test(screen))
    if (!ready) readySince = 0
    else readySince ||= Date.now()
    return ready && Date.now() - readySince >= 1500
  }, 90_000)
}

/**
 * Types a message as a person does: Enter only once the text shows in the
 * input. Sent right behind it, as tmux sends one burst, the Enter could be
 * taken while the interface still handled the text, and nothing was sent.
 */
async function submit(pane: Pane, text: string): Promise<void> {
  pane.type(text)
  await pane.waitFor((screen) => screen.includes(text), 30_000)
  await new Promise((resolve) => setTimeout(resolve, 300))
  pane.keys('Enter')
}

describe.each(AGENTS)('$kind: drover attach', (agent: RealAgent) => {
  it('drains the working agent, opens its own interactive session on the same conversation, and resume sends it back', async () => {
    const server = serverOf(agent)
    const driver = DRIVERS[agent.kind]
    const dir = stateDir()
    const env = agent.env(server)
    const work = agentTempDir('drover-work-')
    driver.prepare?.(env.HOME, work, env)
    const first = `first prompt before the attach, ${agent.kind} [[slow: 60]]`
    const id = await start(dir, env, agent.command(first), work)
    await waitForRequest(server, 'first prompt before the attach')
    const sessionId = await sessionIdOf(dir, id)
    if (agent.kind !== 'copilot') await sessionSaved(env.HOME, sessionId, 'first prompt before the attach')

    const pane = attachIn(dir, env, id)
    try {
      await untilReady(pane, driver, 'first prompt before the attach')
      let task = readTask(dir, id)
      expect(task.runs[0].status).toBe('drained')
      expect(task.runs[1]).toMatchObject({attached: true, status: 'running'})
      expect(task.runs[1].command.join(' ')).toContain(sessionId)

      const typed = `typed in the terminal to ${agent.kind}`
      await submit(pane, typed)
      await waitForRequest(server, typed)
      const request = server.modelRequests(typed).find((q) => agent.kind === 'copilot' || lastUserText(agent, q) === typed) ?? server.modelRequests(typed)[0]
      // the interactive session is the conversation the background run had
      expect(JSON.stringify(request.body)).toContain('first prompt before the attach')
      // a quit typed while the turn still runs would be queued as a message (copilot), not run
      await untilReady(pane, driver, 'Hello from the fake model')

      await submit(pane, driver.quit)
      const screen = await pane.waitFor(/ATTACH-EXIT \d+/, 60_000)
      expect(screen).toMatch(/ATTACH-EXIT 0/)
      expect(screen).toContain(`drover: task ${id}: the attached session ended succeeded`)
      task = readTask(dir, id)
      expect(task.runs[1]).toMatchObject({attached: true, status: 'succeeded', exitCode: 0})
    } finally {
      pane.kill()
    }

    const back = `back to the background, ${agent.kind}`
    const r = await drover(dir, ['resume', String(id), '--prompt', back], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const status = await settled(dir, id, env, 120_000)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 3})
    expect(status.runs[2]).toMatchObject({prompt: back})
    expect(status.runs[2].attached).toBeUndefined()
    const resumed = await waitFor(() => server.modelRequests(back)[0], {timeout: 10_000, message: 'the resumed run to reach the model'})
    expect(JSON.stringify(resumed.body)).toContain(`typed in the terminal to ${agent.kind}`)
  })
})
