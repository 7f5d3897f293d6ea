// `drover ui` in a real browser: Debian's headless Chromium on a real
// `drover ui` child process, loopback only, with tasks started and checked
// through the CLI from "another shell". (Big logs: ui-big.test.ts; long
// transcripts: ui-transcript.test.ts; the dashboard guide's screenshots are taken by
// ui-screenshots.test.ts.)

import path from 'node:path'
import type {Page} from 'playwright-core'
import {describe, expect, it} from 'vitest'
import {drover, fixture, isAlive, json, makeStateDir} from '../helpers/cli.js'
import {signedIn, startUi, useBrowser} from '../helpers/ui.js'

const browser = useBrowser()

async function startTask(stateDir: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  const started = await drover(stateDir, ['start', '--json', ...args], {env})
  return json(started).id
}

const rowStatus = (page: Page, id: number) => page.locator(`#tasks tr[data-id="${id}"] td.status`)

describe('drover ui in a browser', () => {
  it('shows a task started from another shell within a second, and follows its status', async () => {
    const stateDir = makeStateDir()
    await startTask(stateDir, ['--name', 'before', '--cwd', '/', '--shell', 'echo done'])
    const ui = await startUi(stateDir)
    const context = await signedIn(browser(), ui)
    const page = await context.newPage()
    await page.goto(ui.base)
    await page.locator('#tasks tr[data-id="1"]').waitFor()
    await page.locator('#live.live').waitFor()

    const id = await startTask(stateDir, ['--name', 'watched', '--cwd', '/', '--shell', 'sleep 60'])
    const started = Date.now()
    await rowStatus(page, id).waitFor({timeout: 5000})
    expect(Date.now() - started).toBeLessThan(1000)
    await expect.poll(() => rowStatus(page, id).textContent()).toBe('running')
    expect(await page.locator(`#tasks tr[data-id="${id}"] td`).nth(1).textContent()).toBe('watched')

    // filters: by status, by name
    await page.selectOption('#filter-status', 'live')
    await expect.poll(() => page.locator('#tasks tr[data-id="1"]').isHidden()).toBe(true)
    await page.selectOption('#filter-status', '')
    await page.fill('#filter-name', 'watch')
    await expect.poll(() => page.locator('#tasks tr[data-id="1"]').isHidden()).toBe(true)
    expect(await page.locator(`#tasks tr[data-id="${id}"]`).isVisible()).toBe(true)
    await page.fill('#filter-name', '')

    // an agent's turns and cost in the list (the stand-in claude on PATH, as a user would start the real one)
    const agent = await startTask(stateDir, [
      '--name', 'fix-tests', '--cwd', '/', '-e', `HOME=${makeStateDir()}`, '-e', 'FAKE_AGENT_TURNS=3', '-e', 'FAKE_AGENT_TURN_MS=50',
      '--', 'claude', '-p', 'make the tests pass', '--output-format', 'stream-json', '--verbose',
    ], {PATH: `${fixture('bin')}${path.delimiter}${process.env.PATH}`})
    await expect.poll(() => rowStatus(page, agent).textContent(), {timeout: 15_000}).toBe('succeeded')
    const cells = await page.locator(`#tasks tr[data-id="${agent}"] td`).allTextContents()
    expect(cells.slice(6, 9)).toEqual(['claude', '3', expect.stringMatching(/^\$\d+\.\d{4}$/)])

    // a group: its column shows once a task of it is listed, and the group filter shows it alone
    expect(await page.locator('#tasks th.group-name').isVisible()).toBe(false)
    const grouped = await startTask(stateDir, ['--name', 'in-group', '--group', 'nightly', '--cwd', '/', '--shell', 'echo grouped'])
    await expect.poll(() => page.locator(`#tasks tr[data-id="${grouped}"] td.group-name`).textContent()).toBe('nightly')
    expect(await page.locator('#tasks th.group-name').isVisible()).toBe(true)
    await page.selectOption('#filter-group', 'nightly')
    await expect.poll(() => page.locator(`#tasks tr[data-id="${agent}"]`).isHidden()).toBe(true)
    expect(await page.locator(`#tasks tr[data-id="${grouped}"]`).isVisible()).toBe(true)
    await page.selectOption('#filter-group', '')

    expect((await drover(stateDir, ['stop', String(id)])).exitCode).toBe(0)
    await expect.poll(() => rowStatus(page, id).textContent(), {timeout: 15_000}).toMatch(/^stopped/)
    expect((await drover(stateDir, ['rm', String(id)])).exitCode).toBe(0)
    await expect.poll(() => page.locator(`#tasks tr[data-id="${id}"]`).count(), {timeout: 5000}).toBe(0)
  })

  it('streams output into the task page, colours rendered, partial lines shown, markup inert; a stop clicked there stops the task', async () => {
    const stateDir = makeStateDir()
    const id = await startTask(stateDir, ['--name', 'talker', '--cwd', '/', '-e', `FIXTURE=${fixture('ui-output.mjs')}`, '--shell', 'exec node "$FIXTURE"'])
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(`${ui.base}/task/${id}`)
    const output = page.locator('#output')
    await expect.poll(() => output.textContent()).toContain('partial line without newline')
    // it keeps coming while the page is open
    await expect.poll(() => output.textContent(), {timeout: 10_000}).toMatch(/tick [3-9]/)
    expect(await output.locator('span.fg-1').first().textContent()).toBe('red line')
    // a character that arrived in two halves shows whole
    expect(await output.textContent()).toContain('euro split: €\n')
    expect(await output.textContent()).not.toContain('\ufffd')
    expect(await output.textContent()).toContain('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> markup')
    expect(await page.evaluate(() => (window as unknown as {__pwned?: number}).__pwned)).toBeUndefined()
    expect(await output.locator('script, img').count()).toBe(0)

    await page.click('#actions button[data-action="stop"]')
    await expect.poll(() => page.locator('#status').textContent(), {timeout: 20_000}).toMatch(/^stopped/)
    const status = json((await drover(stateDir, ['status', String(id), '--json'])))
    expect(status).toMatchObject({id, status: 'stopped', workerAlive: false})
    expect(await page.locator('#actions button[data-action="again"]').count()).toBe(1)
    // the events journal as a timeline: the stop asked for, the signal it sent, how the run ended
    const events = async () => page.locator('#journal td.event').allTextContents()
    await expect.poll(events, {timeout: 10_000}).toContain('exit')
    expect(await events()).toEqual(expect.arrayContaining(['created', 'started', 'request', 'signal', 'exit']))
    expect(await page.locator('#journal tr.event-request td.facts').textContent()).toContain('kind stop')
    expect(await page.locator('#journal tr.event-signal td.facts').first().textContent()).toBe('signal SIGTERM')
    expect(await page.locator('#journal tr.event-exit td.facts').textContent()).toMatch(/^status stopped · cause stop · reason stopped by request/)
    expect(await page.locator('#journal tr.event-exit td.run').textContent()).toBe('run 1')
  })

  it('refuses actions in read-only mode: none shown, a POST with the CSRF token still 403, the task untouched', async () => {
    const stateDir = makeStateDir()
    const id = await startTask(stateDir, ['--', process.execPath, fixture('sleeper.mjs'), '60'])
    const ui = await startUi(stateDir, ['--read-only'])
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(`${ui.base}/task/${id}`)
    await expect.poll(() => page.locator('#status').textContent()).toBe('running')
    expect(await page.locator('#actions').count()).toBe(0)
    expect(await page.locator('#mode').textContent()).toBe('read-only')
    await page.goto(ui.base)
    await page.locator(`#tasks tr[data-id="${id}"]`).waitFor()
    expect(await page.locator('#start-form').count()).toBe(0)
    const refused = await page.evaluate(async (taskId) => {
      const csrf = document.querySelector<HTMLMetaElement>('meta[name="drover-csrf"]')!.content
      const res = await fetch(`/api/tasks/${taskId}/stop`, {method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf}, body: '{}'})
      return {status: res.status, body: await res.json()}
    }, id)
    expect(refused).toEqual({status: 403, body: {error: 'the dashboard is read-only'}})
    expect(json(await drover(stateDir, ['status', String(id), '--json']))).toMatchObject({status: 'running'})
  })

  it('Ctrl-C ends the dashboard and leaves its tasks running', async () => {
    const stateDir = makeStateDir()
    const id = await startTask(stateDir, ['--', process.execPath, fixture('sleeper.mjs'), '60'])
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(`${ui.base}/task/${id}`)
    await page.locator('#live.live').waitFor()
    expect(await ui.interrupt()).toBe(0)
    const task = json(await drover(stateDir, ['status', String(id), '--json']))
    expect(task.status).toBe('running')
    expect(isAlive(task.pid)).toBe(true)
  })

  it('keeps five task pages of one browser live at once, each following its task (one feed a page: a browser keeps six connections to a host)', async () => {
    const stateDir = makeStateDir()
    const ids: number[] = []
    for (let i = 0; i < 5; i++) ids.push(await startTask(stateDir, ['--', process.execPath, fixture('sleeper.mjs'), '120']))
    const ui = await startUi(stateDir)
    const context = await signedIn(browser(), ui)
    const pages: Page[] = []
    for (const id of ids) {
      const page = await context.newPage()
      await page.goto(`${ui.base}/task/${id}`, {timeout: 15_000})
      await page.locator('#live.live').waitFor({timeout: 15_000})
      await expect.poll(() => page.locator('#status').textContent()).toBe('running')
      pages.push(page)
    }
    // a stop from another shell reaches the page through its output feed...
    const [last] = pages.slice(-1)
    expect((await drover(stateDir, ['stop', String(ids[4])])).exitCode).toBe(0)
    await expect.poll(() => last.locator('#status').textContent(), {timeout: 15_000}).toMatch(/^stopped/)
    // ...and once that feed ended, the task feed tells it of a removal
    expect((await drover(stateDir, ['rm', String(ids[4])])).exitCode).toBe(0)
    await expect.poll(() => last.locator('#action-message').textContent(), {timeout: 10_000}).toBe('This task was removed.')
    // the others never stopped following theirs
    for (const page of pages.slice(0, 4)) expect(await page.locator('#live').textContent()).toBe('live')
    for (const id of ids.slice(0, 4)) expect((await drover(stateDir, ['cancel', String(id)])).exitCode).toBe(0)
  })
})
