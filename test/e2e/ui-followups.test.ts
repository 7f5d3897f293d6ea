// The dashboard's follow-up box in a real browser, checked with the CLI: a
// message for an agent at work is queued (confirmed in a dialog) and listed
// with a withdraw button; one sent "now" drains the run at a safe point and
// the next run, told it, shows its prompt in the runs; a task that runs no
// agent has no box.

import type {Page} from 'playwright-core'
import {describe, expect, it} from 'vitest'
import {drover, json, makeStateDir, startFakeClaude} from '../helpers/cli.js'
import {signedIn, startUi, useBrowser} from '../helpers/ui.js'

const browser = useBrowser()

const followups = async (stateDir: string, id: number) => json(await drover(stateDir, ['followups', String(id), '--json']))

async function send(page: Page, prompt: string, opts: {now?: boolean} = {}) {
  await page.fill('#followups textarea[name="prompt"]', prompt)
  if (opts.now) await page.check('#followups input[name="now"]')
  await page.click('#followups button[type="submit"]')
}

describe('drover ui: follow-ups', () => {
  it('queues a follow-up for an agent at work, withdraws one, and sends one now: the run drains for it and the next run shows what it was told', async () => {
    const stateDir = makeStateDir()
    const id = await startFakeClaude(stateDir, 100_000)
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    const dialogs: string[] = []
    page.on('dialog', (dialog) => dialogs.push(dialog.message()))
    await page.goto(`${ui.base}/task/${id}`)

    await send(page, 'write the tests next')
    await expect.poll(() => page.locator('#followups ol li').count(), {timeout: 30_000}).toBe(1)
    expect(dialogs.at(-1)).toMatch(/^Queue this follow-up for task \d+\? It is delivered when the run at work ends well\./)
    await send(page, 'then the docs')
    await expect.poll(() => page.locator('#followups ol li').count(), {timeout: 30_000}).toBe(2)
    expect((await followups(stateDir, id)).pending.map((f: any) => f.prompt)).toEqual(['write the tests next', 'then the docs'])

    await page.click('#followups button[data-withdraw="1"]')
    await expect.poll(() => page.locator('#followups ol li').count(), {timeout: 30_000}).toBe(1)
    expect((await followups(stateDir, id)).pending.map((f: any) => f.n)).toEqual([2])

    await send(page, 'stop and read the spec first', {now: true})
    await expect.poll(async () => json(await drover(stateDir, ['status', String(id), '--json'])).run, {timeout: 60_000}).toBe(2)
    const task = json(await drover(stateDir, ['status', String(id), '--json']))
    expect(task.runs[0]).toMatchObject({status: 'drained', reason: 'drained to take a follow-up'})
    expect(task.runs[1]).toMatchObject({followup: 3, prompt: 'stop and read the spec first'})
    await expect.poll(() => page.locator('#timeline li').nth(1).textContent(), {timeout: 30_000}).toMatch(/^run 2 \(follow-up 3\): .*told: stop and read the spec first$/)
    // the one still queued waits for this run's end
    expect((await followups(stateDir, id)).pending.map((f: any) => f.prompt)).toEqual(['then the docs'])
    await drover(stateDir, ['cancel', String(id)])
  }, 120_000)

  it('offers no follow-up box to a task that runs no agent', async () => {
    const stateDir = makeStateDir()
    const id = Number((await drover(stateDir, ['start', '--', 'sleep', '300'])).stdout.trim())
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(`${ui.base}/task/${id}`)
    await expect.poll(() => page.locator('#status').textContent(), {timeout: 15_000}).toBe('running')
    expect(await page.locator('#followups').count()).toBe(0)
    await drover(stateDir, ['cancel', String(id)])
  })
})
