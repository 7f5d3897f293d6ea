// The dashboard as a new user met it, in a real browser (Debian's headless
// Chromium on a real `drover ui`): an agent opens on its transcript, which
// keeps a failure in the middle of a long tool result; runs read as the CLI
// words them, in 24-hour time even in a 12-hour locale; a remove button;
// queue controls (pause, resume, limit) and one aligned table per queue; the
// start form's queue, worktree, retry and budget fields; and no sideways
// scrolling at 600 px.

import type {Page} from 'playwright-core'
import {describe, expect, it} from 'vitest'
import {drover, fixture, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {cleanupRepos, makeRepo} from '../helpers/git.js'
import {signedIn, startUi, useBrowser} from '../helpers/ui.js'

const browser = useBrowser(cleanupRepos)

const cli = async (stateDir: string, args: string[]) => json(await drover(stateDir, ['--json', ...args]))
const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)

describe('drover ui: what a new user met', () => {
  it('an agent opens on its transcript, with the FAIL in the middle of a 40-line result; runs in 24-hour time; Remove', async () => {
    const stateDir = makeStateDir()
    const id = (await cli(stateDir, ['start', '--agent', 'claude', '--', process.execPath, fixture('agent-failing-tool.mjs')])).id
    await waitFor(() => readTask(stateDir, id).status === 'succeeded', {message: 'the agent to end'})
    const ui = await startUi(stateDir)
    // en-US: a locale whose own time format is 12-hour
    const page = await (await signedIn(browser(), ui, {locale: 'en-US'})).newPage()
    await page.goto(`${ui.base}/task/${id}`)
    await expect.poll(() => page.locator('nav.tabs button[aria-pressed="true"]').textContent()).toBe('Transcript')
    await expect.poll(() => page.locator('#transcript').textContent(), {timeout: 15_000}).toContain('  FAIL test/math.test.ts > adds')
    const transcript = (await page.locator('#transcript').textContent()) ?? ''
    expect(transcript).toContain('← ok 1 passes\n  ok 2 passes\n  ok 3 passes\n  … 16 more lines\n  FAIL test/math.test.ts > adds\n  … 17 more lines\n  ok 38 passes')
    expect(transcript).not.toContain('"type":')
    expect(await page.locator('#output').count()).toBe(0) // the raw stream is a click away, not shown first

    const run = (await page.locator('#timeline li').first().textContent()) ?? ''
    expect(run).toMatch(/^run 1: \d\d:\d\d:\d\d → \d\d:\d\d:\d\d, succeeded \(exit 0\)$/)
    expect(await page.locator('dl.facts').textContent()).not.toMatch(/AM|PM/)

    await page.click('#actions button[data-action="rm"]')
    await page.waitForURL(`${ui.base}/`)
    expect(await cli(stateDir, ['list'])).toEqual([])
  })

  it('a running run reads "→ now, running", once', async () => {
    const stateDir = makeStateDir()
    const id = (await cli(stateDir, ['start', '--', process.execPath, fixture('sleeper.mjs')])).id
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui, {locale: 'en-US'})).newPage()
    await page.goto(`${ui.base}/task/${id}`)
    await expect.poll(() => page.locator('#timeline li').first().textContent(), {timeout: 15_000}).toMatch(/^run 1: \d\d:\d\d:\d\d → now, running$/)
    // an ended task offers no Remove while it runs
    expect(await page.locator('#actions button[data-action="rm"]').count()).toBe(0)
    await drover(stateDir, ['cancel', String(id)])
  })

  it('queues: pause, resume and a new limit from the page; holding and waiting rows in one table, columns aligned', async () => {
    const stateDir = makeStateDir()
    await drover(stateDir, ['queue', 'set', 'q', '--parallel', '1'])
    const first = (await cli(stateDir, ['start', '--queue', 'q', '--name', 'first', '--', process.execPath, fixture('sleeper.mjs')])).id
    const second = (await cli(stateDir, ['start', '--queue', 'q', '--name', 'second-with-a-longer-name', '--', process.execPath, fixture('sleeper.mjs'), '299'])).id
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(`${ui.base}/queues`)
    const section = page.locator('section[data-queue="q"]')
    await expect.poll(() => section.locator('tbody.waiting tr[data-id]').count(), {timeout: 15_000}).toBe(1)
    expect(await section.locator('table').count()).toBe(1)
    const x = async (rowId: number, cell: string) => (await section.locator(`tr[data-id="${rowId}"] td.${cell}`).boundingBox())!.x
    expect(await x(first, 'status')).toBe(await x(second, 'status'))
    expect(await x(first, 'command')).toBe(await x(second, 'command'))

    await section.locator('button[data-action="pause"]').click()
    await expect.poll(async () => (await cli(stateDir, ['queue'])).find((q: {name: string}) => q.name === 'q').paused, {timeout: 10_000}).toBe(true)
    await expect.poll(() => section.locator('h2 .paused').count(), {timeout: 10_000}).toBe(1)
    await section.locator('button[data-action="resume"]').click()
    await expect.poll(async () => (await cli(stateDir, ['queue'])).find((q: {name: string}) => q.name === 'q').paused, {timeout: 10_000}).toBe(false)
    await section.locator('input[name="parallel"]').fill('2')
    await section.locator('button[data-action="set"]').click()
    await expect.poll(async () => (await cli(stateDir, ['queue'])).find((q: {name: string}) => q.name === 'q').parallel, {timeout: 10_000}).toBe(2)
    await expect.poll(async () => readTask(stateDir, second).status, {timeout: 15_000}).toBe('running')
    await drover(stateDir, ['cancel', String(first), String(second)])
  })

  it('the start form takes a queue, priority, after, a worktree, retries and a budget', async () => {
    const stateDir = makeStateDir()
    const repo = makeRepo()
    const blocker = (await cli(stateDir, ['start', '--name', 'blocker', '--', process.execPath, fixture('sleeper.mjs')])).id
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(ui.base)
    await page.click('details.start summary')
    await page.selectOption('#start-form select[name="mode"]', 'argv')
    await page.fill('#start-form textarea[name="command"]', ['claude', '-p', 'fix it', '--output-format', 'stream-json', '--verbose'].join('\n'))
    await page.fill('#start-form input[name="cwd"]', repo)
    await page.selectOption('#start-form select[name="agent"]', 'claude')
    await page.fill('#start-form input[name="queue"]', 'agents')
    await page.fill('#start-form input[name="priority"]', '5')
    await page.fill('#start-form input[name="after"]', 'blocker')
    await page.selectOption('#start-form select[name="worktree"]', 'new')
    await page.fill('#start-form input[name="retry"]', '2')
    await page.fill('#start-form input[name="retryDelay"]', '30s')
    await page.fill('#start-form input[name="maxTurns"]', '40')
    await page.fill('#start-form input[name="maxTokens"]', '2M')
    await page.click('#start-form button[type="submit"]')
    await page.waitForURL(/\/task\/2$/)
    const task = await cli(stateDir, ['status', '2'])
    expect(task).toMatchObject({status: 'queued', queue: 'agents', priority: 5, after: [blocker], retryMax: 2, retryDelayMs: 30_000, policies: {maxTurns: 40, maxTokens: 2_000_000}})
    expect(task.worktree).toMatchObject({branch: 'drover/2-task'})
    await drover(stateDir, ['cancel', '2', String(blocker)])
  })

  it('at 600 px nothing scrolls sideways: the list, a task, the queues', async () => {
    const stateDir = makeStateDir()
    const long = `echo ${'a-rather-long-argument-'.repeat(12)}`
    const id = (await cli(stateDir, ['start', '--queue', 'narrow', '--name', 'a-long-task-name-for-a-narrow-window', '--shell', long])).id
    await waitFor(() => readTask(stateDir, id).status === 'succeeded', {message: 'the task to end'})
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.setViewportSize({width: 600, height: 800})
    for (const [where, drawn] of [['/', `#tasks tr[data-id="${id}"]`], [`/task/${id}`, '#timeline li'], ['/queues', 'section[data-queue="narrow"]']]) {
      await page.goto(`${ui.base}${where}`)
      await page.locator(drawn).first().waitFor({timeout: 15_000})
      expect(await sideways(page), where).toBeLessThanOrEqual(0)
    }
  })
})
