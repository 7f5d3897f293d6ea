// What a thread deleting a big prune's trash runs (tree-delete.ts): each
// claimed tree deleted as thoroughly as fs.rm, never through a symlink, its
// bytes counted as treeBytes counts them; a batch's trash folder removed
// after its trees; a tree that cannot go reported with its bytes, left for
// the next prune.

import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {deleteBatch, deleteTreeSync, treeBytes} from '../../src/tasks/tree-delete.js'
import {canMountTmpfs} from '../fixtures/rel-state.js'
import {posixOnly} from '../helpers/skips.js'

const dirs: string[] = []
const mounted: string[] = []
afterEach(() => {
  for (const m of mounted.splice(0)) execFileSync('umount', ['-l', m], {stdio: 'ignore'})
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'drover-tree-delete-'))
  dirs.push(d)
  return d
}

/** A claimed task's tree as prune leaves it in a trash folder, with some nesting and data. */
function taskTree(at: string, outputBytes = 300): string {
  mkdirSync(join(at, 'requests'), {recursive: true})
  mkdirSync(join(at, 'session', 'deep'), {recursive: true})
  writeFileSync(join(at, 'task.json'), '{"id": 1}')
  writeFileSync(join(at, 'output.log'), 'x'.repeat(outputBytes))
  writeFileSync(join(at, 'events.ndjson'), '')
  writeFileSync(join(at, 'session', 'deep', 'state.json'), '{"step": 3}')
  return at
}

describe('deleteTreeSync', () => {
  it('removes a task tree and counts exactly the bytes treeBytes saw', () => {
    const tree = taskTree(join(tmp(), '.trash-7-abcd'))
    const before = treeBytes(tree)
    const removed = {bytes: 0}
    deleteTreeSync(tree, removed)
    expect(existsSync(tree)).toBe(false)
    expect(removed.bytes).toBe(before)
    expect(before).toBe(9 + 300 + 11)
  })

  it('ignores a missing path and removes a plain file, counting it', () => {
    const base = tmp()
    const removed = {bytes: 0}
    deleteTreeSync(join(base, 'missing'), removed)
    writeFileSync(join(base, 'file'), 'abc')
    deleteTreeSync(join(base, 'file'), removed)
    expect(existsSync(join(base, 'file'))).toBe(false)
    expect(removed.bytes).toBe(3)
  })

  posixOnly('symlinks').it('unlinks symlinks inside the tree and in its place, never what they point to', () => {
    const base = tmp()
    const outside = join(base, 'outside')
    mkdirSync(join(outside, 'sub'), {recursive: true})
    writeFileSync(join(outside, 'keep.txt'), 'keep')
    writeFileSync(join(outside, 'sub', 'keep.txt'), 'keep')
    const tree = taskTree(join(base, 'tree'))
    symlinkSync(outside, join(tree, 'session', 'dirlink'))
    symlinkSync(join(outside, 'keep.txt'), join(tree, 'filelink'))
    deleteTreeSync(tree, {bytes: 0})
    expect(existsSync(tree)).toBe(false)
    const planted = join(base, 'planted')
    symlinkSync(outside, planted)
    deleteTreeSync(planted, {bytes: 0})
    expect(existsSync(planted)).toBe(false)
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep')
    expect(readFileSync(join(outside, 'sub', 'keep.txt'), 'utf8')).toBe('keep')
  })
})

describe('deleteBatch', () => {
  it("deletes each job's tree and lock grave, answers each task's bytes, then removes the batch's folder", () => {
    const folder = join(tmp(), '.trash-batch')
    const trees = [1, 2, 3].map((id) => taskTree(join(folder, String(id)), id * 100))
    const sizes = trees.map(treeBytes)
    const graves = [2, 3].map((id) => join(folder, `${id}.lock`))
    for (const grave of graves) {
      mkdirSync(grave)
      writeFileSync(join(grave, 'owner.json'), '{"pid": 1}')
    }
    // Not what a lock holds: the walk takes it instead.
    writeFileSync(join(graves[1], 'stray'), 'x')
    const done = deleteBatch({folder, jobs: trees.map((trash, k) => ({seq: k, trash, grave: k === 0 ? null : graves[k - 1]})), delays: []})
    expect(done).toEqual(sizes.map((bytes, seq) => ({seq, bytes, error: null})))
    expect(existsSync(folder)).toBe(false)
  })

  it.skipIf(!canMountTmpfs())('a tree that cannot go (a mount inside) is reported with its bytes, the others go, and the folder stays for the next prune', () => {
    const folder = join(tmp(), '.trash-batch')
    const [stuck, fine] = [1, 2].map((id) => taskTree(join(folder, String(id))))
    const stuckBytes = treeBytes(stuck)
    const mount = join(stuck, 'requests')
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount])
    mounted.push(mount)
    const [bad, good] = deleteBatch({folder, jobs: [stuck, fine].map((trash, seq) => ({seq, trash, grave: null})), delays: []})
    expect(bad).toEqual({seq: 0, bytes: stuckBytes, error: expect.stringContaining('EBUSY')})
    expect(good).toEqual({seq: 1, bytes: stuckBytes, error: null})
    expect(readdirSync(folder)).toEqual(['1'])
    expect(readdirSync(stuck)).toContain('requests')
  })
})
