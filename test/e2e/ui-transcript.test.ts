// The transcript tab on a long agent run, in a real browser (Debian's
// headless Chromium on a real `drover ui`): a claude-shaped event stream
// (test/fixtures/agent-long.mjs) writes thousands of events while the page is open, and the tab keeps only the
// last 2,000 lines; "older entries" pages earlier ones back in whole, in
// order, with nothing lost or shown twice.

import type {Page} from 'playwright-core'
import {describe, expect, it, vi} from 'vitest'
import {drover, fixture, json, makeStateDir, waitFor} from '../helpers/cli.js'
import {signedIn, startUi, useBrowser} from '../helpers/ui.js'

vi.setConfig({testTimeout: 90_000})

const browser = useBrowser()

const TURNS = 2500
/** The view's bound (src/ui/client/transcript-view.ts). */
const MAX_LINES = 2000

const transcript = async (page: Page) => (await page.locator('#transcript').textContent()) ?? ''
const linesOf = (text: string) => text.split('\n').slice(0, text.endsWith('\n') ? -1 : undefined)
/** The turn numbers the transcript shows, in order. */
const turnsOf = (text: string) => [...text.matchAll(/^turn (\d+): working on "count"$/gm)].map((m) => Number(m[1]))
const consecutive = (turns: number[]) => turns.every((turn, i) => i === 0 || turn === turns[i - 1] + 1)

/** The whole transcript as the server renders it (what `read_output` gives a model), read in pages from the page itself. */
const serverTranscript = (page: Page, id: number) =>
  page.evaluate(async (taskId) => {
    let text = ''
    let at = 0
    for (;;) {
      const answer = await (await fetch(`/api/tasks/${taskId}/output?format=transcript&offset=${at}`)).json()
      text += answer.text
      at = answer.end
      if (!answer.more) return text
    }
  }, id)

describe('drover ui: a long transcript', () => {
  it('keeps the last 2,000 lines while an agent streams thousands of events, and pages older entries back in, whole and in order', async () => {
    const stateDir = makeStateDir()
    const ui = await startUi(stateDir)
    const context = await signedIn(browser(), ui)
    const page = await context.newPage()
    // 100 turns (300 events) every 250 ms: about 6 s of streaming into the open page
    const id = json(await drover(stateDir, ['start', '--json', '--agent', 'claude', '--name', 'long', '--', process.execPath, fixture('agent-long.mjs'), String(TURNS), '250'])).id
    await page.goto(`${ui.base}/task/${id}`)
    await page.click('nav.tabs button:has-text("Transcript")')
    const finished = (text: string) => text.includes(`[result: success, ${TURNS} turns`)
    // while it streams, the page fills up to the bound and no further
    let peak = 0
    await waitFor(
      async () => {
        const count = linesOf(await transcript(page)).length
        peak = Math.max(peak, count)
        return count >= MAX_LINES - 10
      },
      {timeout: 30_000, interval: 50, message: 'the transcript to fill up'},
    )
    expect(peak).toBeLessThanOrEqual(MAX_LINES)
    expect(finished(await transcript(page))).toBe(false)
    // older entries asked for mid-stream: the bound rises by what they brought, so the click is not undone at once
    const older = page.locator('#older-entries')
    const before = turnsOf(await transcript(page))[0]
    await older.click()
    await expect.poll(async () => turnsOf(await transcript(page))[0] < before || finished(await transcript(page)), {timeout: 10_000}).toBe(true)
    const bound = Math.max(MAX_LINES, linesOf(await transcript(page)).length)
    expect(bound).toBeLessThan(MAX_LINES + 2000)
    await waitFor(
      async () => {
        const text = await transcript(page)
        peak = Math.max(peak, linesOf(text).length)
        return finished(text)
      },
      {timeout: 60_000, interval: 50, message: 'the last turn in the transcript'},
    )
    expect(peak).toBeLessThanOrEqual(bound)
    const text = await transcript(page)
    const lines = linesOf(text)
    expect(lines.length).toBeLessThanOrEqual(bound)
    expect(lines.length).toBeGreaterThan(MAX_LINES - 10)
    // whole entries only: what the agent said, its tool calls and their results, the final result
    for (const line of lines) expect(line).toMatch(/^(turn \d+: working on "count"|→ Bash echo \d+|← \d+|\[result: success, .*)$/)
    const shown = turnsOf(text)
    expect(shown.at(-1)).toBe(TURNS)
    expect(consecutive(shown)).toBe(true)
    expect(shown[0]).toBeGreaterThan(1)
    expect(text).not.toContain('[session ')

    // what streamed in after the click joined without a gap; older entries again: the turns just before, no gap, no repeat
    expect(await older.isVisible()).toBe(true)
    await older.click()
    await expect.poll(async () => turnsOf(await transcript(page))[0], {timeout: 10_000}).toBeLessThan(shown[0])
    const more = turnsOf(await transcript(page))
    expect(consecutive(more)).toBe(true)
    expect(more.at(-1)).toBe(TURNS)
    // ...and so on back to the start, where the button goes: then the page holds exactly what the server renders
    for (let clicks = 0; (await older.isVisible()) && clicks < 60; clicks++) {
      const first = turnsOf(await transcript(page))[0]
      await older.click()
      await expect.poll(async () => (await older.isHidden()) || turnsOf(await transcript(page))[0] < first, {timeout: 10_000}).toBe(true)
    }
    expect(await older.isHidden()).toBe(true)
    const whole = await transcript(page)
    expect(turnsOf(whole)).toEqual(Array.from({length: TURNS}, (_, i) => i + 1))
    expect(whole).toBe(await serverTranscript(page, id))
    expect(whole.startsWith('[session ')).toBe(true)

    // a page opened now starts from the last 1,000 events, with the older ones a click away
    const late = await context.newPage()
    await late.goto(`${ui.base}/task/${id}`)
    await late.click('nav.tabs button:has-text("Transcript")')
    await expect.poll(() => transcript(late), {timeout: 15_000}).toContain(`[result: success, ${TURNS} turns`)
    const opened = turnsOf(await transcript(late))
    expect(opened.length).toBeGreaterThan(300)
    expect(opened.length).toBeLessThan(400)
    expect(consecutive(opened)).toBe(true)
    expect(await late.locator('#older-entries').isVisible()).toBe(true)
  })
})
