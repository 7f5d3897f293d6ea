// The dashboard guide's pictures (docs/top-and-dashboard.md), taken in the real browser from a
// small, realistic state dir: a build and a failing test run (a stand-in
// `make`), three agents in a queue of one slot (the stand-in `claude`): one
// done in its own worktree with a change to review, one running, one
// waiting. With UPDATE_SCREENSHOTS=1 they are written to docs/; otherwise to
// a temp dir, so a plain test run leaves the work tree clean. It checks the
// scene too, so a picture of a broken page fails here first.

import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type {Page} from 'playwright-core'
import {afterAll, describe, expect, it, vi} from 'vitest'
import {drover, fixture, json, makeStateDir, makeTempDir, ROOT, waitFor} from '../helpers/cli.js'
import {cleanupRepos, GIT_IDENTITY, gitIn} from '../helpers/git.js'
import {signedIn, startUi, useBrowser} from '../helpers/ui.js'

vi.setConfig({testTimeout: 120_000})

const UPDATE = process.env.UPDATE_SCREENSHOTS === '1'
const SHOTS = UPDATE ? path.join(ROOT, 'docs') : mkdtempSync(path.join(os.tmpdir(), 'drover-ui-shots-'))

const browser = useBrowser(cleanupRepos)

afterAll(() => {
  if (!UPDATE) rmSync(SHOTS, {recursive: true, force: true})
})

const RETRY_C = `#include "retry.h"

/* How long to wait before attempt n (1-based). */
unsigned retry_delay_ms(unsigned n, unsigned base_ms) {
  return base_ms * n;
}
`
const RETRY_FIXED = `#include "retry.h"

/* How long to wait before attempt n (1-based): doubling, capped at a minute. */
unsigned retry_delay_ms(unsigned n, unsigned base_ms) {
  unsigned delay = base_ms << (n - 1);
  return delay > 60000 ? 60000 : delay;
}
`
const RETRY_TEST = `const {test} = require('node:test')
const assert = require('node:assert')
const {delay} = require('./retry-binding')

test('retry: backs off twice as long each time', () => {
  assert.deepStrictEqual([1, 2, 3].map((n) => delay(n, 1000)), [1000, 2000, 4000])
})
`

/** A small C project on branch main. */
function demoRepo(root: string): string {
  const repo = path.join(root, 'retry-lib')
  mkdirSync(path.join(repo, 'src'), {recursive: true})
  gitIn(repo, 'init', '-q', '-b', 'main')
  writeFileSync(path.join(repo, 'src', 'retry.c'), RETRY_C)
  writeFileSync(path.join(repo, 'README.md'), '# retry-lib\n\nBackoff for flaky calls.\n')
  gitIn(repo, 'add', '.')
  gitIn(repo, 'commit', '-q', '-m', 'retry-lib')
  return repo
}

/**
 * The paths of this run's temp dirs, as the usual ones: the pictures carry
 * no path of the machine that took them. Text only, after the page is drawn.
 */
async function usualPaths(page: Page, swaps: [string, string][]): Promise<void> {
  await page.evaluate((pairs) => {
    const walker = document.createTreeWalker(document.getElementById('main')!, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const [from, to] of pairs) if (node.nodeValue!.includes(from)) node.nodeValue = node.nodeValue!.split(from).join(to)
    }
  }, swaps)
}

describe('drover ui: the README screenshots', () => {
  it('shows builds and queued agents in the list, and an agent’s page with its transcript, usage and diff', async () => {
    const stateDir = makeStateDir()
    const demo = makeTempDir('drover-demo-')
    const repo = demoRepo(demo)
    const env = {PATH: [fixture('ui-demo/bin'), fixture('bin'), process.env.PATH].join(path.delimiter), ...GIT_IDENTITY}
    const agent = (turns: number, turnMs: number) => ['-e', `HOME=${makeTempDir('drover-home-')}`, '-e', `FAKE_AGENT_TURNS=${turns}`, '-e', `FAKE_AGENT_TURN_MS=${turnMs}`]
    const claude = (prompt: string) => ['--', 'claude', '-p', prompt, '--output-format', 'stream-json', '--verbose']
    const start = async (args: string[], cwd = '/') => {
      const r = await drover(stateDir, ['start', '--json', ...args], {env, cwd})
      expect(r.exitCode, r.stderr).toBe(0)
      return json(r).id as number
    }
    expect((await drover(stateDir, ['queue', 'set', 'agents', '--parallel', '1'])).exitCode).toBe(0)
    await start(['--name', 'build', '--', 'make', '-j4'])
    const fix = await start(['--name', 'fix-retry', '--queue', 'agents', '--worktree', ...agent(4, 50), ...claude('fix the flaky retry test')], repo)
    const docs = await start(['--name', 'add-docs', '--queue', 'agents', ...agent(400, 700), ...claude('document the queue options in the README')])
    const deps = await start(['--name', 'bump-deps', '--queue', 'agents', ...agent(3, 50), ...claude('update the dependencies and fix what breaks')])
    const tests = await start(['--name', 'unit-tests', '--', 'make', 'test'])
    const status = async (id: number) => json(await drover(stateDir, ['status', String(id), '--json']))
    await waitFor(async () => (await status(fix)).status === 'succeeded' && (await status(tests)).status === 'failed', {timeout: 30_000, message: 'the agent and the tests to end'})
    // what the agent would have changed, committed in its worktree
    const worktree = (await status(fix)).worktree.path as string
    writeFileSync(path.join(worktree, 'src', 'retry.c'), RETRY_FIXED)
    writeFileSync(path.join(worktree, 'retry.test.js'), RETRY_TEST)
    gitIn(worktree, 'add', '.')
    gitIn(worktree, 'commit', '-q', '-m', 'retry: double the delay each attempt, capped at a minute')
    await waitFor(async () => (await status(docs)).agentInfo?.turns >= 2, {timeout: 30_000, message: 'the second agent under way'})

    const ui = await startUi(stateDir)
    const context = await signedIn(browser(), ui)
    const page = await context.newPage()
    await page.goto(ui.base)
    await page.locator('#live.live').waitFor()
    await expect.poll(() => page.locator('#tasks tbody tr').count()).toBe(5)
    await expect.poll(() => page.locator(`#tasks tr[data-id="${deps}"] td.status`).textContent()).toBe('queued (#1 in agents)')
    expect(await page.locator(`#tasks tr[data-id="${docs}"] td.status`).textContent()).toBe('running')
    expect(await page.locator(`#tasks tr[data-id="${tests}"] td.status`).textContent()).toBe('failed (2)')
    expect(await page.locator(`#tasks tr[data-id="${fix}"] td`).nth(8).textContent()).toMatch(/^\$\d+\.\d{4}$/)
    // no task of a group: no Group column
    expect(await page.locator('#tasks th.group-name').isVisible()).toBe(false)
    // the list down to its last element, not the empty viewport under it
    const height = await page.evaluate(() => Math.ceil(document.getElementById('main')!.getBoundingClientRect().bottom) + 12)
    await page.screenshot({path: path.join(SHOTS, 'dashboard-list.png'), clip: {x: 0, y: 0, width: 1280, height}})

    await page.goto(`${ui.base}/task/${fix}`)
    await page.click('nav.tabs button:has-text("Transcript")')
    await expect.poll(() => page.locator('#transcript').textContent(), {timeout: 15_000}).toMatch(/→ Bash /)
    await page.locator('#usage-chart polyline').first().waitFor()
    await expect.poll(() => page.locator('#worktree-summary dt:has-text("Files changed") + dd').textContent()).toBe('2')
    expect(await page.locator('#diff .diff-add').count()).toBeGreaterThan(0)
    // the journal is drawn before the chart: now every path is on the page
    await expect.poll(() => page.locator('#journal td.event').allTextContents()).toContain('exit')
    await usualPaths(page, [
      [stateDir, '~/.local/state/drover'],
      [demo, '~/src'],
      [fixture('bin'), '/usr/local/bin'],
    ])
    const shown = (await page.locator('#main').textContent())!
    expect(shown).not.toContain(os.tmpdir())
    expect(shown).not.toContain(ROOT)
    await page.screenshot({path: path.join(SHOTS, 'dashboard-task.png'), fullPage: true})
  })
})
