// The dashboard's Merge, Squash-merge and Discard buttons in a real browser,
// each confirmed in a dialog and checked with git and the CLI: the branch
// merged into the one it started from, a conflict shown and left to the
// person, and a discard that names the commits it threw away.

import type {Page} from 'playwright-core'
import {describe, expect, it} from 'vitest'
import {drover, json, makeStateDir, readTask} from '../helpers/cli.js'
import {branches, cleanupRepos, commitFile, GIT_IDENTITY, gitIn, makeRepo} from '../helpers/git.js'
import {signedIn, startUi, useBrowser} from '../helpers/ui.js'
import {workedTask} from '../helpers/worktree-task.js'

const browser = useBrowser(cleanupRepos)

const worked = async (dir: string, repo: string, script: string): Promise<number> => (await workedTask(dir, repo, script)).id

const buttons = (page: Page) => page.locator('#actions button').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-action')))

describe('drover ui: merge and discard', () => {
  it('merges and squash-merges from the page after a confirm; a conflict is shown and left as git leaves it; discard names the commits', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const merged = await worked(dir, repo, 'echo two >> a.txt && git commit -qam two')
    const squashed = await worked(dir, repo, 'echo s > s.txt && git add s.txt && git commit -qm s1 && echo t >> s.txt && git commit -qam s2')
    const clash = await worked(dir, repo, 'echo theirs > a.txt && git commit -qam theirs')
    const tossed = await worked(dir, repo, 'echo junk > junk.txt && git add junk.txt && git commit -qm junk')
    const ui = await startUi(dir, [], GIT_IDENTITY)
    const context = await signedIn(browser(), ui)
    const page = await context.newPage()
    const dialogs: string[] = []
    page.on('dialog', (dialog) => dialogs.push(dialog.message()))

    await page.goto(`${ui.base}/task/${merged}`)
    await expect.poll(() => buttons(page)).toEqual(expect.arrayContaining(['merge', 'squash', 'discard']))
    await page.click('#actions button[data-action="merge"]')
    await expect.poll(() => page.locator('#action-notice').textContent(), {timeout: 15_000}).toMatch(new RegExp(`task ${merged}: 1 commit of drover/${merged}-task fast-forwarded into main`))
    expect(dialogs.at(-1)).toMatch(/^Merge task 1's branch into the branch it started from\?/)
    expect(gitIn(repo, 'rev-parse', 'main').trim()).toBe(readTask(dir, merged).worktree.merged.commit)
    await expect.poll(() => page.locator('dl.facts').first().textContent(), {timeout: 15_000}).toMatch(/Mergedinto main, 1 commit, now at [0-9a-f]{12}/)

    await page.goto(`${ui.base}/task/${squashed}`)
    // the page's actions are drawn once its task is read: a click before that reaches no handler
    await expect.poll(() => buttons(page)).toEqual(expect.arrayContaining(['merge', 'squash', 'discard']))
    await page.click('#actions button[data-action="squash"]')
    await expect.poll(() => page.locator('#action-notice').textContent(), {timeout: 15_000}).toMatch(/2 commits of drover\/2-task squashed into one commit into main/)
    expect(gitIn(repo, 'log', '-1', '--format=%s', 'main').trim()).toBe(`task ${squashed}: the work of drover/${squashed}-task`)

    const ours = commitFile(repo, 'a.txt', 'ours\n')
    await page.goto(`${ui.base}/task/${clash}`)
    await expect.poll(() => buttons(page)).toEqual(expect.arrayContaining(['merge', 'squash', 'discard']))
    await page.click('#actions button[data-action="merge"]')
    await expect.poll(() => page.locator('#action-message').textContent(), {timeout: 15_000}).toMatch(/conflicts in a\.txt; .* is as git left it: resolve and commit there, or undo with git -C .* merge --abort/)
    expect(gitIn(repo, 'rev-parse', 'main').trim()).toBe(ours)
    gitIn(repo, 'merge', '--abort')

    await page.goto(`${ui.base}/task/${tossed}`)
    await page.click('#actions button[data-action="discard"]')
    await expect.poll(() => page.locator('#action-notice').textContent(), {timeout: 15_000}).toMatch(new RegExp(`task ${tossed} removed: branch drover/${tossed}-task deleted with 1 unmerged commit: [0-9a-f]{12} junk`))
    expect(dialogs.at(-1)).toMatch(/^Discard task 4's work and remove the task\?/)
    expect(branches(repo)).not.toContain(`drover/${tossed}-task`)
    expect(json(await drover(dir, ['list', '--json'])).map((t: {id: number}) => t.id)).toEqual([merged, squashed, clash])
  })
})
