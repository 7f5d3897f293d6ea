// Whether a task's branch still holds work its target does not: merged as
// git sees it (its tip reachable), or merged in content — every change of it
// already in the target, as a squash merge, a rebase, a cherry-pick or the
// same edit made by hand leave it. `rm` and `prune` delete only such a branch
// (unless told to discard), and name the commits they would lose.

import {git, GitError, gitTest} from './git.js'

/** The commit a local branch names, or null when there is no such branch. */
export function branchTip(repo: string, branch: string): string | null {
  try {
    return git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`]).trim()
  } catch {
    return null
  }
}

/** Whether everything `tip` changed since `base` is in `into`. A ref that names nothing is merged into nothing. */
export function mergedInto(repo: string, into: string, tip: string, base: string): boolean {
  try {
    if (gitTest(repo, ['merge-base', '--is-ancestor', tip, into])) return true
    // every commit's patch is in `into` (a rebase, cherry-picks): git cherry marks each '-'
    const cherry = git(repo, ['cherry', into, tip, base]).split('\n').filter(Boolean)
    if (cherry.length > 0 && cherry.every((line) => line.startsWith('-'))) return true
    return squashedInto(repo, into, tip, base) || mergeChangesNothing(repo, into, tip)
  } catch (error) {
    if (error instanceof GitError) return false // that ref is gone (or HEAD is unborn)
    throw error
  }
}

/** The branch's whole change as one patch is a commit of `into` since the base: a squash merge. */
function squashedInto(repo: string, into: string, tip: string, base: string): boolean {
  const whole = patchIds(repo, git(repo, ['diff', '--no-color', '--no-ext-diff', base, tip]))
  if (whole.length !== 1) return false
  return patchIds(repo, git(repo, ['log', '-p', '--no-color', '--no-ext-diff', '--format=commit %H', `${base}..${into}`])).includes(whole[0])
}

function patchIds(repo: string, patches: string): string[] {
  if (patches.trim() === '') return []
  return git(repo, ['patch-id', '--stable'], {input: patches})
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[0])
}

/** Merging the branch would leave `into`'s tree as it is (git 2.38 and later; older ones: not known, so not merged). */
function mergeChangesNothing(repo: string, into: string, tip: string): boolean {
  try {
    const tree = git(repo, ['merge-tree', '--write-tree', into, tip]).split('\n')[0].trim()
    return tree === git(repo, ['rev-parse', `${into}^{tree}`]).trim()
  } catch {
    return false // a conflict, or a git without --write-tree
  }
}

/** The commits on `tip` since `base` (newest first): sha and subject, what a discard names so they can be brought back. */
export function commitsSince(repo: string, base: string, tip: string): {sha: string; subject: string}[] {
  return git(repo, ['log', '--format=%H %s', `${base}..${tip}`])
    .split('\n')
    .filter(Boolean)
    .map((line) => ({sha: line.slice(0, line.indexOf(' ') < 0 ? line.length : line.indexOf(' ')), subject: line.indexOf(' ') < 0 ? '' : line.slice(line.indexOf(' ') + 1)}))
}
