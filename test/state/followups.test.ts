// The follow-up queue on disk: numbers never given twice (a withdrawn one's
// included), delivery order (those asked for now first), what a record
// already names as delivered or dropped left out, a torn file skipped, and a
// symlink put in the folder's place removed rather than followed.

import {mkdirSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {addFollowup, pendingFollowups, removeFollowup} from '../../src/state/followups.js'
import {newRecord} from '../../src/tasks/launch.js'
import {taskPaths} from '../../src/state/store.js'
import {cleanupStateDirs, makeStateDir, makeTempDir} from '../helpers/cli.js'
import {posixOnly} from '../helpers/skips.js'

afterEach(cleanupStateDirs)

function paths() {
  const p = taskPaths(makeStateDir(), 4)
  mkdirSync(p.dir, {recursive: true})
  return p
}

const record = () =>
  newRecord(4, {command: ['claude', '-p', 'x'], shell: null, name: null, cwd: '/repo', env: {}, agent: 'claude', policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}})

describe('the follow-up queue', () => {
  it('numbers follow-ups from 1 and never gives a number twice, even after the last was withdrawn', () => {
    const p = paths()
    expect(addFollowup(p, {prompt: 'a', now: false, keep: false}).n).toBe(1)
    expect(addFollowup(p, {prompt: 'b', now: false, keep: true}).n).toBe(2)
    expect(removeFollowup(p, 2)).toBe(true)
    expect(removeFollowup(p, 2)).toBe(false)
    expect(addFollowup(p, {prompt: 'c', now: false, keep: false}).n).toBe(3)
    expect(pendingFollowups(p).map((f) => [f.n, f.prompt, f.keep])).toEqual([
      [1, 'a', false],
      [3, 'c', false],
    ])
  })

  it('delivers those asked for now first, then the rest by number', () => {
    const p = paths()
    addFollowup(p, {prompt: 'first', now: false, keep: false})
    addFollowup(p, {prompt: 'urgent', now: true, keep: false})
    addFollowup(p, {prompt: 'second', now: false, keep: false})
    expect(pendingFollowups(p).map((f) => f.prompt)).toEqual(['urgent', 'first', 'second'])
  })

  it('leaves out what the record names as delivered or dropped (its writer died before removing the file)', () => {
    const p = paths()
    for (const prompt of ['a', 'b', 'c']) addFollowup(p, {prompt, now: false, keep: false})
    const base = record()
    const withRuns = {
      ...base,
      runs: [...base.runs, {...base.runs[0], run: 2, followup: 1}],
      droppedFollowups: [{n: 2, prompt: 'b', queuedAt: '', droppedAt: '', run: 2, reason: 'run 2 failed'}],
    }
    expect(pendingFollowups(p, withRuns).map((f) => f.n)).toEqual([3])
    expect(pendingFollowups(p).map((f) => f.n)).toEqual([1, 2, 3])
  })

  it('skips a torn or hand-made file, and nothing else in the folder counts', () => {
    const p = paths()
    addFollowup(p, {prompt: 'good', now: false, keep: false})
    writeFileSync(path.join(p.followups, '000007.json'), '{"prompt": "tor')
    writeFileSync(path.join(p.followups, '000008.json'), '{"prompt": ""}\n')
    writeFileSync(path.join(p.followups, 'notes.txt'), 'hello')
    expect(pendingFollowups(p).map((f) => f.prompt)).toEqual(['good'])
    // the torn file's number is taken all the same
    expect(addFollowup(p, {prompt: 'next', now: false, keep: false}).n).toBe(9)
  })

  posixOnly('symlinks without privileges').it("removes a symlink put in the folder's place instead of writing where it points", () => {
    const p = paths()
    const elsewhere = makeTempDir('drover-elsewhere-')
    symlinkSync(elsewhere, p.followups)
    addFollowup(p, {prompt: 'mine', now: false, keep: false})
    expect(readdirSync(elsewhere)).toEqual([])
    expect(pendingFollowups(p).map((f) => f.prompt)).toEqual(['mine'])
  })
})
