// The dashboard's queue and worktree views in a real browser (Debian's
// headless Chromium on a real `drover ui`): the queue column and filter of
// the list, the queue view following tasks started and released from
// another shell, and a `start --worktree` task's summary and diff against
// its base in a real git repository — coloured, inert, cut when huge, and
// read again when the task ends.

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import type {Page} from 'playwright-core'
import {describe, expect, it, vi} from 'vitest'
import {drover, json, makeStateDir, makeTempDir, readTask, startOk, waitFor} from '../helpers/cli.js'
import {cleanupRepos, GIT_IDENTITY, makeRepo} from '../helpers/git.js'
import {jobs} from '../helpers/queue-jobs.js'
import {signedIn, startUi, useBrowser} from '../helpers/ui.js'

vi.setConfig({testTimeout: 90_000})

const browser = useBrowser(cleanupRepos)

const row = (page: Page, id: number) => page.locator(`#tasks tr[data-id="${id}"]`)
const queueRows = (page: Page, queue: string, kind: 'holding' | 'waiting') =>
  page.locator(`section[data-queue="${queue}"] tbody.${kind} tr[data-id]`).evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-id'))))

describe('drover ui: queues', () => {
  it('shows each task’s queue, filters by queue, and a queue view that follows the queue live', async () => {
    const stateDir = makeStateDir()
    const job = jobs()
    expect((await drover(stateDir, ['queue', 'set', 'builds', '--parallel', '1'])).exitCode).toBe(0)
    const a = await startOk(stateDir, ['--queue', 'builds', '--name', 'build-a', ...job.argv('a')])
    const b = await startOk(stateDir, ['--queue', 'builds', '--name', 'build-b', ...job.argv('b')])
    const free = await startOk(stateDir, ['--name', 'free', ...job.argv('free')])
    const ui = await startUi(stateDir)
    const context = await signedIn(browser(), ui)
    const page = await context.newPage()
    await page.goto(ui.base)
    await row(page, free).waitFor()
    await page.locator('#live.live').waitFor()

    // the queue column (a link to the queue), and a waiting task's place in line in its status, as `drover list` words it
    await expect.poll(() => row(page, a).locator('td.queue').textContent()).toBe('builds')
    expect(await row(page, b).locator('td.queue').textContent()).toBe('builds')
    expect(await row(page, b).locator('td.status').textContent()).toBe('queued (#1 in builds)')
    expect(await row(page, free).locator('td.queue').textContent()).toBe('')
    expect(await row(page, a).locator('td.queue a').getAttribute('href')).toBe('/queues#queue-builds')

    // the filter offers each queue seen, and "no queue"
    expect(await page.locator('#filter-queue option').allTextContents()).toEqual(['all queues', 'no queue', 'builds'])
    await page.selectOption('#filter-queue', 'builds')
    await expect.poll(() => row(page, free).isHidden()).toBe(true)
    expect(await row(page, a).isVisible()).toBe(true)
    expect(await row(page, b).isVisible()).toBe(true)
    await page.selectOption('#filter-queue', '-')
    await expect.poll(() => row(page, a).isHidden()).toBe(true)
    expect(await row(page, free).isVisible()).toBe(true)
    // a queue first seen after the page opened joins the filter, and its task obeys the filter in force
    const other = await startOk(stateDir, ['--queue', 'docs', ...job.argv('docs')])
    await expect.poll(() => page.locator('#filter-queue option').allTextContents()).toEqual(['all queues', 'no queue', 'builds', 'docs'])
    expect(await row(page, other).isHidden()).toBe(true)
    await page.selectOption('#filter-queue', '')

    // the queue view: limit, slots taken, the waiting in order, each a link to its task
    const queues = await context.newPage()
    await queues.goto(`${ui.base}/queues`)
    const builds = queues.locator('section[data-queue="builds"]')
    await builds.waitFor()
    expect(await builds.locator('dd.limit').textContent()).toBe('1 at a time')
    expect(await builds.locator('dd.running').textContent()).toBe('1 of 1')
    expect(await builds.locator('dd.waiting').textContent()).toBe('1')
    expect(await queueRows(queues, 'builds', 'holding')).toEqual([a])
    expect(await queueRows(queues, 'builds', 'waiting')).toEqual([b])
    expect(await queues.locator('section[data-queue="docs"] dd.running').textContent()).toBe('1 of 1')

    // started from another shell: it joins the line, behind b
    const c = await startOk(stateDir, ['--queue', 'builds', '--name', 'build-c', ...job.argv('c')])
    await expect.poll(() => queueRows(queues, 'builds', 'waiting'), {timeout: 5000}).toEqual([b, c])
    expect(await builds.locator(`tbody.waiting tr[data-id="${c}"] td.status`).textContent()).toBe('#2')
    // a ends: b takes its slot, c moves up — in both pages
    job.release('a')
    await expect.poll(() => queueRows(queues, 'builds', 'holding'), {timeout: 15_000}).toEqual([b])
    await expect.poll(() => queueRows(queues, 'builds', 'waiting')).toEqual([c])
    await expect.poll(() => builds.locator(`tbody.waiting tr[data-id="${c}"] td.status`).textContent()).toBe('#1')
    await expect.poll(() => row(page, c).locator('td.status').textContent()).toBe('queued (#1 in builds)')
    await expect.poll(() => row(page, b).locator('td.status').textContent()).toBe('running')
    // a new limit reaches the view without any task changing first
    expect((await drover(stateDir, ['queue', 'set', 'builds', '--parallel', '3'])).exitCode).toBe(0)
    await expect.poll(() => builds.locator('dd.limit').textContent(), {timeout: 10_000}).toBe('3 at a time')
    await expect.poll(() => queueRows(queues, 'builds', 'holding'), {timeout: 10_000}).toEqual([b, c])

    await builds.locator(`tr[data-id="${c}"] a`).click()
    await queues.waitForURL(new RegExp(`/task/${c}$`))
    await expect.poll(() => queues.locator('dl.facts dt:has-text("Queue") + dd').textContent()).toBe('builds')
    for (const name of ['b', 'c', 'free', 'docs']) job.release(name)
  })

  it('says so when there are no queues', async () => {
    const ui = await startUi(makeStateDir())
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(`${ui.base}/queues`)
    await expect.poll(() => page.locator('#queues').textContent()).toContain('No queues yet')
    expect(await page.locator('header nav a[aria-current="page"]').textContent()).toBe('queues')
  })
})

/** A script run by `start --worktree` in the repo: waits for its go file when given one, then changes the tree. */
function worktreeScript(dir: string, lines: string[], goFile?: string): string {
  const script = path.join(dir, `change-${Math.random().toString(36).slice(2)}.sh`)
  writeFileSync(script, `${goFile ? `while [ ! -e '${goFile}' ]; do sleep 0.05; done\n` : ''}${lines.join('\n')}\n`)
  return script
}

async function startInWorktree(stateDir: string, repo: string, name: string, script: string): Promise<number> {
  const r = await drover(stateDir, ['start', '--worktree', '--name', name, '--', 'sh', script], {cwd: repo, env: GIT_IDENTITY})
  expect(r.exitCode, r.stderr).toBe(0)
  return Number(r.stdout.trim())
}

describe('drover ui: worktrees', () => {
  it('shows the summary and the diff of a --worktree task, coloured and inert, and reads it again when the task ends', async () => {
    const stateDir = makeStateDir()
    const repo = makeRepo()
    const scripts = makeTempDir('drover-scripts-')
    const go = path.join(scripts, 'go')
    const id = await startInWorktree(
      stateDir,
      repo,
      'fix',
      worktreeScript(
        scripts,
        [
          // a.txt: "one" becomes "two" and gains a line that begins with "++", then a commit; page.html stays uncommitted
          `printf 'two\\n++ plus\\n' > a.txt`,
          'git commit -qam "two"',
          `printf '<script>window.__pwned = 1</script>\\n<img src=x onerror="window.__pwned = 2">\\n' > page.html`,
        ],
        go,
      ),
    )
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    await page.goto(`${ui.base}/task/${id}`)
    const summary = page.locator('#worktree-summary')
    const fact = (name: string) => summary.locator(`dt:has-text("${name}") + dd`).textContent()
    // while the task waits, nothing has changed yet
    await expect.poll(() => page.locator('#worktree').textContent()).toContain('No changes against the base.')
    expect(await fact('Branch')).toBe(`drover/${id}-fix`)
    expect(await fact('Base')).toMatch(/^HEAD \([0-9a-f]{12}\)$/)
    expect(await fact('Files changed')).toBe('0')

    // the task changes its tree and ends: the page reads the worktree again by itself
    writeFileSync(go, '')
    await expect.poll(() => fact('Files changed'), {timeout: 20_000}).toBe('2')
    expect(await fact('Lines')).toBe('+4 −1')
    expect(await fact('Commits')).toBe('1')
    expect(await fact('Uncommitted')).toBe('yes')
    const diff = page.locator('#diff')
    expect(await diff.locator('.diff-del').allTextContents()).toEqual(['-one\n'])
    // "+++ plus" is an added line, not a file header: inside a hunk, position decides
    expect(await diff.locator('.diff-add').allTextContents()).toEqual([
      '+two\n+++ plus\n',
      '+<script>window.__pwned = 1</script>\n+<img src=x onerror="window.__pwned = 2">\n',
    ])
    expect(await diff.locator('.diff-file').first().textContent()).toBe('diff --git a/a.txt b/a.txt\n')
    expect(await diff.locator('.diff-hunk').count()).toBe(2)
    // markup in the diff is text: nothing ran, no element was made of it
    expect(await diff.locator('script, img').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as {__pwned?: number}).__pwned)).toBeUndefined()
    // the colours are the stylesheet's: added and removed lines look different
    const colours = await page.evaluate(() => ['.diff-add', '.diff-del'].map((s) => getComputedStyle(document.querySelector(s)!).backgroundColor))
    expect(colours[0]).not.toBe(colours[1])
    expect(await page.locator('#diff-truncated').count()).toBe(0)

    // the data is the API's: the same summary `drover status --json` records at the end of the run
    const view = await page.evaluate(async (taskId) => (await fetch(`/api/tasks/${taskId}/worktree`)).json(), id)
    expect(view.worktree).toMatchObject({id, branch: `drover/${id}-fix`, present: true, summary: {filesChanged: 2, insertions: 4, deletions: 1, commits: 1, uncommitted: true}})
    expect(readTask(stateDir, id).worktree.summary).toMatchObject({filesChanged: 2, insertions: 4, deletions: 1})
    // a task without a worktree has no such section
    const plain = await startOk(stateDir, ['--', 'sh', '-c', 'echo plain'])
    await page.goto(`${ui.base}/task/${plain}`)
    await expect.poll(() => page.locator('#status').textContent()).toBe('succeeded')
    expect(await page.locator('#worktree').count()).toBe(0)
  })

  it('cuts a huge diff, says so, and the page stays responsive', async () => {
    const stateDir = makeStateDir()
    const repo = makeRepo()
    const scripts = makeTempDir('drover-scripts-')
    // about 4 MB of added lines: 100,000 of them
    const id = await startInWorktree(stateDir, repo, 'big', worktreeScript(scripts, [`seq -f 'generated line %07g of a big change' 1 100000 > big.txt`]))
    await waitFor(() => readTask(stateDir, id).status === 'succeeded', {timeout: 20_000, message: 'the big change'})
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    const opened = Date.now()
    await page.goto(`${ui.base}/task/${id}`)
    await expect.poll(() => page.locator('#diff-truncated').textContent(), {timeout: 15_000}).toMatch(
      new RegExp(`^The diff is [\\d,]+ bytes: the first [\\d,]+ are shown\\. drover diff ${id} prints it all\\.$`),
    )
    expect(Date.now() - opened).toBeLessThan(15_000)
    expect(await page.locator('#worktree-summary dt:has-text("Lines") + dd').textContent()).toBe('+100,000 −0')
    const shown = await page.evaluate(() => document.getElementById('diff')!.textContent!)
    expect(shown.length).toBeLessThanOrEqual(512 * 1024)
    expect(shown.length).toBeGreaterThan(400 * 1024)
    // whole lines only, in order, from the start
    expect(shown).toMatch(/\+generated line 0000001 of a big change\n/)
    expect(shown.endsWith(' of a big change\n')).toBe(true)
    // few nodes for many lines, and the page answers at once while scrolled
    expect(await page.locator('#diff span').count()).toBeLessThan(20)
    for (let i = 0; i < 5; i++) {
      const asked = Date.now()
      await page.evaluate(() => document.getElementById('diff')!.scrollBy(0, 5000))
      expect(Date.now() - asked).toBeLessThan(1000)
    }
    const whole = json(await drover(stateDir, ['diff', String(id), '--json'])).diff as string
    expect(whole.startsWith(shown)).toBe(true)
  })
})
