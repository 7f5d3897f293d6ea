// The dashboard's actions in a real browser, each confirmed in a dialog and
// checked with the CLI: a task started from the form and started again, a
// refused form, and an agent's page — its readable transcript, turns and
// cost, drained, resumed and cancelled from the page.

import type {Page} from 'playwright-core'
import {describe, expect, it} from 'vitest'
import {drover, json, makeStateDir, startFakeClaude} from '../helpers/cli.js'
import {signedIn, startUi, useBrowser} from '../helpers/ui.js'

const browser = useBrowser()

const statusOf = (page: Page) => page.locator('#status').textContent()
const cliStatus = async (stateDir: string, id: number) => json(await drover(stateDir, ['status', String(id), '--json']))

describe('drover ui: actions', () => {
  it('starts a task from the form, shows it, and starts it again as a new run', async () => {
    const stateDir = makeStateDir()
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    const dialogs: string[] = []
    page.on('dialog', (dialog) => dialogs.push(dialog.message()))
    await page.goto(ui.base)
    await page.click('details.start summary')
    await page.fill('#start-form textarea[name="command"]', 'echo hello-from-the-form')
    await page.fill('#start-form input[name="name"]', 'formed')
    await page.click('#start-form button[type="submit"]')
    await page.waitForURL(/\/task\/1$/)
    expect(dialogs[0]).toContain('Start this task?')
    await expect.poll(() => page.locator('#output').textContent()).toContain('hello-from-the-form')
    await expect.poll(() => statusOf(page)).toBe('succeeded')
    expect(await cliStatus(stateDir, 1)).toMatchObject({name: 'formed', shell: 'echo hello-from-the-form', status: 'succeeded'})

    await page.click('#actions button[data-action="again"]')
    await expect.poll(async () => (await cliStatus(stateDir, 1)).run, {timeout: 15_000}).toBe(2)
    await expect.poll(() => page.locator('#timeline li').count(), {timeout: 15_000}).toBe(2)
    await expect.poll(async () => ((await page.locator('#output').textContent()) ?? '').split('hello-from-the-form').length - 1).toBe(2)
  })

  it('shows why a start was refused, and starts nothing', async () => {
    const stateDir = makeStateDir()
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(ui.base)
    await page.click('details.start summary')
    await page.fill('#start-form textarea[name="command"]', 'echo never')
    await page.fill('#start-form input[name="name"]', '9 lives')
    await page.click('#start-form button[type="submit"]')
    await expect.poll(() => page.locator('#start-form .error').textContent()).toMatch(/name/)
    // an agent needs its command as argv: the same check as `drover start --agent claude --shell …`
    await page.fill('#start-form input[name="name"]', '')
    await page.selectOption('#start-form select[name="agent"]', 'claude')
    await page.click('#start-form button[type="submit"]')
    await expect.poll(() => page.locator('#start-form .error').textContent()).toMatch(/needs its command as argv/)
    expect(page.url()).toBe(`${ui.base}/`)
    expect(json(await drover(stateDir, ['list', '--json']))).toEqual([])
  })

  it("shows an agent's transcript and usage; drains, resumes and cancels it from the page", async () => {
    const stateDir = makeStateDir()
    const id = await startFakeClaude(stateDir, 400)
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(`${ui.base}/task/${id}`)
    await page.click('nav.tabs button:has-text("Transcript")')
    await expect.poll(() => page.locator('#transcript').textContent(), {timeout: 15_000}).toMatch(/→ Bash /)
    expect(await page.locator('#transcript').textContent()).not.toContain('"type":')
    await expect.poll(async () => Number(await page.locator('#usage dt:has-text("Turns") + dd').textContent()), {timeout: 15_000}).toBeGreaterThan(0)
    // tokens and cost by turn, drawn from the agent's own stream
    await expect.poll(() => page.locator('#usage-chart polyline').count(), {timeout: 15_000}).toBeGreaterThan(0)
    expect(await page.locator('#usage-chart figcaption').textContent()).toMatch(/tokens [\d,]+ · cost .* · by turn, 1–\d+/)

    await page.click('#actions button[data-action="drain"]')
    await expect.poll(() => statusOf(page), {timeout: 30_000}).toMatch(/^drained/)
    expect(await cliStatus(stateDir, id)).toMatchObject({status: 'drained', resume: `drover resume ${id}`})

    await page.locator('#actions button[data-action="resume"]').click()
    await expect.poll(async () => (await cliStatus(stateDir, id)).run, {timeout: 15_000}).toBe(2)
    await page.waitForLoadState()
    await expect.poll(() => statusOf(page), {timeout: 15_000}).toBe('running')

    await page.click('#actions button[data-action="cancel"]')
    await expect.poll(async () => (await cliStatus(stateDir, id)).status, {timeout: 15_000}).toBe('cancelled')
    await expect.poll(() => statusOf(page), {timeout: 10_000}).toMatch(/^cancelled/)
  })
})
