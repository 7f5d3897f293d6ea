// The fast deletion of a claimed task tree (removal.ts removeClaimedTree): it
// must be as thorough as fs.rm and, like it, never follow a symlink — not a
// link inside the tree, not a link planted as the tree itself.

import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {removeClaimedTree} from '../../src/tasks/removal.js'
import {posixOnly} from '../helpers/skips.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'drover-removal-'))
  dirs.push(d)
  return d
}

describe('removeClaimedTree', () => {
  it('removes a task-shaped tree with nested folders, empty and not', async () => {
    const tree = join(tmp(), '.trash-7-abcd')
    mkdirSync(join(tree, 'requests'), {recursive: true})
    mkdirSync(join(tree, 'session', 'deep', 'er'), {recursive: true})
    writeFileSync(join(tree, 'task.json'), '{}')
    writeFileSync(join(tree, 'output.log'), '')
    writeFileSync(join(tree, 'session', 'deep', 'er', 'f'), 'x')
    await removeClaimedTree(tree)
    expect(existsSync(tree)).toBe(false)
  })

  it('ignores a missing path and removes a plain file', async () => {
    const base = tmp()
    await expect(removeClaimedTree(join(base, 'missing'))).resolves.toBeUndefined()
    writeFileSync(join(base, 'file'), 'x')
    await removeClaimedTree(join(base, 'file'))
    expect(existsSync(join(base, 'file'))).toBe(false)
  })

  posixOnly('symlinks').it('unlinks symlinks inside the tree and in its place, never what they point to', async () => {
    const base = tmp()
    const outside = join(base, 'outside')
    mkdirSync(join(outside, 'sub'), {recursive: true})
    writeFileSync(join(outside, 'keep.txt'), 'keep')
    writeFileSync(join(outside, 'sub', 'keep.txt'), 'keep')
    const tree = join(base, 'tree')
    mkdirSync(join(tree, 'session'), {recursive: true})
    symlinkSync(outside, join(tree, 'session', 'dirlink'))
    symlinkSync(join(outside, 'keep.txt'), join(tree, 'filelink'))
    await removeClaimedTree(tree)
    expect(existsSync(tree)).toBe(false)
    const planted = join(base, 'planted')
    symlinkSync(outside, planted)
    await removeClaimedTree(planted)
    expect(existsSync(planted)).toBe(false)
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep')
    expect(readFileSync(join(outside, 'sub', 'keep.txt'), 'utf8')).toBe('keep')
  })
})
