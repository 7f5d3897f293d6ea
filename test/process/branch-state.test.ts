// Whether a branch's work is in its target, in real repositories: merged by
// git's reckoning, by a squash, by cherry-picks (a rebase), or the same edit
// made by hand; a branch with work of its own is not.

import {afterEach, describe, expect, it} from 'vitest'
import {branchTip, commitsSince, mergedInto} from '../../src/process/branch-state.js'
import {cleanupRepos, commitFile, gitIn, makeRepo} from '../helpers/git.js'
import {wineLacks} from '../helpers/skips.js'

afterEach(() => cleanupRepos())

/** A repo with a branch `work` of two commits from main's first commit, main checked out. */
function withWork(): {repo: string; base: string; tip: string} {
  const repo = makeRepo()
  const base = gitIn(repo, 'rev-parse', 'HEAD').trim()
  gitIn(repo, 'switch', '-q', '-c', 'work')
  commitFile(repo, 'b.txt', 'b\n', 'add b')
  const tip = commitFile(repo, 'a.txt', 'one\ntwo\n', 'two')
  gitIn(repo, 'switch', '-q', 'main')
  commitFile(repo, 'c.txt', 'c\n', 'main moves on')
  return {repo, base, tip}
}

wineLacks('git for Windows').describe('mergedInto', () => {
  it('not merged while the branch holds work of its own', () => {
    const {repo, base, tip} = withWork()
    expect(mergedInto(repo, 'main', tip, base)).toBe(false)
    expect(commitsSince(repo, base, tip).map((c) => c.subject)).toEqual(['two', 'add b'])
    expect(branchTip(repo, 'work')).toBe(tip)
    expect(branchTip(repo, 'nosuch')).toBeNull()
  })

  it('merged: by git, by a squash, by cherry-picks, by the same edit made by hand', () => {
    const merged = withWork()
    gitIn(merged.repo, 'merge', '-q', '--no-edit', 'work')
    expect(mergedInto(merged.repo, 'main', merged.tip, merged.base)).toBe(true)

    const squashed = withWork()
    gitIn(squashed.repo, 'merge', '--squash', '-q', 'work')
    gitIn(squashed.repo, 'commit', '-qm', 'squashed')
    expect(mergedInto(squashed.repo, 'main', squashed.tip, squashed.base)).toBe(true)

    const picked = withWork()
    gitIn(picked.repo, 'cherry-pick', `${picked.base}..work`)
    expect(mergedInto(picked.repo, 'main', picked.tip, picked.base)).toBe(true)

    // two commits of main that together hold the branch's change, neither one its patch
    const byHand = withWork()
    commitFile(byHand.repo, 'a.txt', 'one\ntwo\n', 'two, typed again')
    commitFile(byHand.repo, 'b.txt', 'b\n', 'b, typed again')
    expect(mergedInto(byHand.repo, 'main', byHand.tip, byHand.base)).toBe(true)
  })

  it('a ref that names nothing merges nothing', () => {
    const {repo, base, tip} = withWork()
    expect(mergedInto(repo, 'nosuch', tip, base)).toBe(false)
  })
})
