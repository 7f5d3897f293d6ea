// The state store: ids by atomic mkdir that are never handed out twice (not even after
// a task folder is removed), atomic record writes that a concurrent reader never sees
// half-written, and reads that turn a bad record into an explanation instead of a crash.

import {spawn} from 'node:child_process'
import {lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import {afterEach, describe, expect, it} from 'vitest'

import {newRecord} from '../../src/tasks/launch.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {
  sessionUuid,
  allocateTaskId,
  appendEvent,
  createTaskLayout,
  listTaskIds,
  raiseHighWater,
  readAllRecords,
  readEvents,
  readHighWater,
  readRecord,
  taskPaths,
  tasksDir,
  writeFileAtomic,
  writeRecord,
} from '../../src/state/store.js'
import {cleanupStateDirs, fixture, makeStateDir} from '../helpers/cli.js'
import {posixOnly} from '../helpers/skips.js'

afterEach(cleanupStateDirs)

function freshStateDir(): string {
  const dir = makeStateDir()
  ensureStateDir(dir)
  return dir
}

const spec = {
  command: ['echo', 'hi'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic' as const,
  policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
}

function createTask(stateDir: string): number {
  const id = allocateTaskId(stateDir)
  createTaskLayout(taskPaths(stateDir, id))
  writeRecord(stateDir, newRecord(id, spec))
  return id
}

const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('.') || name.endsWith('.tmp'))

describe('task ids', () => {
  it('counts up from 1, one folder each', () => {
    const dir = freshStateDir()
    expect([allocateTaskId(dir), allocateTaskId(dir), allocateTaskId(dir)]).toEqual([1, 2, 3])
    expect(listTaskIds(dir)).toEqual([1, 2, 3])
  })

  it('skips an id whose folder another process made first', () => {
    const dir = freshStateDir()
    expect(allocateTaskId(dir)).toBe(1)
    mkdirSync(path.join(tasksDir(dir), '2'))
    mkdirSync(path.join(tasksDir(dir), '3'))
    expect(allocateTaskId(dir)).toBe(4)
  })

  it('never reuses the id of the newest task after its folder is removed by hand', () => {
    const dir = freshStateDir()
    const ids = [createTask(dir), createTask(dir), createTask(dir)]
    expect(ids).toEqual([1, 2, 3])
    rmSync(taskPaths(dir, 3).dir, {recursive: true})
    rmSync(taskPaths(dir, 2).dir, {recursive: true})
    expect(createTask(dir)).toBe(4)
    rmSync(tasksDir(dir), {recursive: true})
    mkdirSync(tasksDir(dir), {mode: 0o700})
    expect(createTask(dir)).toBe(5)
  })

  it('never reuses an id removed the way prune does it (mark raised, then folder removed)', () => {
    const dir = freshStateDir()
    for (let i = 0; i < 4; i++) createTask(dir)
    raiseHighWater(dir, 4)
    rmSync(taskPaths(dir, 4).dir, {recursive: true})
    expect(readHighWater(dir)).toBeGreaterThanOrEqual(4)
    expect(allocateTaskId(dir)).toBe(5)
  })

  it('never hands out an id handed out and pruned while it stalled between reading the mark and its mkdir', () => {
    const dir = freshStateDir()
    createTask(dir)
    const id = allocateTaskId(dir, () => {
      // meanwhile: task 2 is created, ends and is pruned (the mark raised, then the folder removed)
      expect(createTask(dir)).toBe(2)
      raiseHighWater(dir, 2)
      rmSync(taskPaths(dir, 2).dir, {recursive: true})
    })
    expect(id).toBe(3)
    expect(listTaskIds(dir)).toEqual([1, 3])
  })

  it('starts from the mark without listing tasks/, and lists it only when there is no mark', () => {
    const dir = freshStateDir()
    for (let i = 0; i < 3; i++) createTask(dir)
    // a folder far above the mark is not looked for (the mark is the source); one in the way is skipped
    mkdirSync(path.join(tasksDir(dir), '9'))
    mkdirSync(path.join(tasksDir(dir), '4'))
    expect(allocateTaskId(dir)).toBe(5)
    rmSync(path.join(dir, 'last-id'))
    expect(allocateTaskId(dir)).toBe(10)
  })

  it('keeps the high-water mark monotonic: raising it lower does nothing', () => {
    const dir = freshStateDir()
    raiseHighWater(dir, 9)
    raiseHighWater(dir, 3)
    expect(readHighWater(dir)).toBe(9)
    expect(allocateTaskId(dir)).toBe(10)
    // Raisers that raced append out of order; the largest line is the mark.
    writeFileSync(path.join(dir, 'last-id'), '12\n15\n13\n')
    expect(readHighWater(dir)).toBe(15)
    expect(allocateTaskId(dir)).toBe(16)
  })

  it('reads the mark as the largest line that is a whole number, whatever else the file holds', () => {
    const dir = freshStateDir()
    // the reading it must agree with: each line trimmed, a safe whole number above 0
    const reference = (text: string) =>
      Math.max(0, ...text.split('\n').map((line) => (line.trim() !== '' && Number.isSafeInteger(Number(line.trim())) && Number(line.trim()) > 0 ? Number(line.trim()) : 0)))
    const line = fc.oneof(
      fc.integer({min: 0, max: 2 ** 53 + 10}).map(String),
      fc.constantFrom('', ' 7 ', '12\r', '007', '1e3', '0x10', '-5', '3.0', 'garbage', '9007199254740993', '123456789012345678', '2.5', '١٢'),
    )
    fc.assert(
      fc.property(fc.array(line, {maxLength: 12}), fc.boolean(), (lines, newline) => {
        const text = lines.join('\n') + (newline ? '\n' : '')
        writeFileSync(path.join(dir, 'last-id'), text)
        expect(readHighWater(dir)).toBe(reference(text))
      }),
    )
  })

  it('finds the highest line of a mark as drover writes it, at its end or before lower ids appended late by allocators that stalled', () => {
    const dir = freshStateDir()
    fc.assert(
      fc.property(fc.integer({min: 1, max: 4000}), fc.array(fc.nat(), {maxLength: 5}), fc.option(fc.nat()), fc.boolean(), (n, late, movedTo, newline) => {
        const ids = Array.from({length: n}, (_, k) => k + 1)
        // appended after the highest by allocators that read the mark long before
        for (const back of late) ids.push(Math.max(1, n - back))
        // the highest further back, up to 1,000 lines of lower ids after it (allocators that read the mark before it was appended)
        if (movedTo !== null) ids.splice(Math.max(0, ids.length - (movedTo % 1000)), 0, n + 1 + (movedTo % 7))
        const text = ids.join('\n') + (newline ? '\n' : '')
        writeFileSync(path.join(dir, 'last-id'), text)
        expect(readHighWater(dir)).toBe(Math.max(...ids))
      }),
      {numRuns: 60},
    )
    // a long mark is read from its last 8 KB: there a line cut at any byte is left out
    const long = Array.from({length: 20_000}, (_, k) => k + 100_001)
    for (let cut = 0; cut < 8; cut++) {
      writeFileSync(path.join(dir, 'last-id'), long.slice(0, long.length - cut).join('\n') + '\n'.repeat(cut % 2))
      expect(readHighWater(dir)).toBe(long[long.length - 1 - cut])
    }
  })

  it('never hands out an id of a long mark, even when its highest lies before the part read for it', () => {
    const dir = freshStateDir()
    // 200,000 far back, then 20,000 lower ids (108 KB): thousands of allocators would have had to stall at once
    const ids = [200_000, ...Array.from({length: 20_000}, (_, k) => k + 1)]
    writeFileSync(path.join(dir, 'last-id'), ids.join('\n') + '\n')
    expect(readHighWater(dir)).toBe(20_000)
    const id = allocateTaskId(dir)
    expect(ids).not.toContain(id)
    // and an id the mark holds is found on any line: 20,001 handed out (and pruned) right after the highest
    writeFileSync(path.join(dir, 'last-id'), [200_000, 20_001, ...Array.from({length: 20_000}, (_, k) => k + 1)].join('\n') + '\n')
    rmSync(taskPaths(dir, id).dir, {recursive: true})
    expect(allocateTaskId(dir)).toBe(200_001)
  })

  it('never hands out an id a long mark holds, whatever line it is on', () => {
    const dir = freshStateDir()
    writeFileSync(path.join(dir, 'last-id'), '1\n')
    const id = allocateTaskId(dir, () => {
      // meanwhile: 5,000 ids handed out and pruned, 2 among them on a line in the middle of the mark
      const lines = [...Array.from({length: 2498}, (_, k) => k + 3), 2, ...Array.from({length: 2500}, (_, k) => k + 2501)]
      writeFileSync(path.join(dir, 'last-id'), lines.join('\n') + '\n')
    })
    expect(id).toBe(5001)
    expect(listTaskIds(dir)).toEqual([5001])
  })

  it('treats an unreadable mark as absent rather than failing', () => {
    const dir = freshStateDir()
    writeFileSync(path.join(dir, 'last-id'), 'garbage\n')
    expect(readHighWater(dir)).toBe(0)
    expect(allocateTaskId(dir)).toBe(1)
  })

  it('lists only numeric task folders, ignoring dot entries, files, symlinks and leading zeros', () => {
    const dir = freshStateDir()
    createTask(dir)
    createTask(dir)
    mkdirSync(path.join(tasksDir(dir), '.trash'))
    mkdirSync(path.join(tasksDir(dir), '007'))
    mkdirSync(path.join(tasksDir(dir), 'abc'))
    writeFileSync(path.join(tasksDir(dir), '12'), '')
    symlinkSync(taskPaths(dir, 1).dir, path.join(tasksDir(dir), '13'))
    expect(listTaskIds(dir)).toEqual([1, 2])
  })
})

describe('atomic record writes', () => {
  it('leaves no temp file behind, and a second write replaces the first whole', () => {
    const dir = freshStateDir()
    const id = createTask(dir)
    const record = newRecord(id, spec)
    writeRecord(dir, {...record, reason: 'second'})
    const read = readRecord(dir, id)
    expect(read.ok && read.record.reason).toBe('second')
    expect(leftovers(taskPaths(dir, id).dir)).toEqual([])
  })

  it('a reader never sees a partial record while another process rewrites it in a loop', async () => {
    const dir = freshStateDir()
    const id = createTask(dir)
    const writes = 300
    const writer = spawn(process.execPath, [fixture('core-record-writer.mjs'), dir, String(id), String(writes)], {stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    writer.stderr.on('data', (chunk) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => writer.once('exit', (code) => resolve(code)))
    let reads = 0
    let running = true
    void exited.then(() => (running = false))
    const reasons = new Set<string>()
    while (running || reads < 50) {
      const read = readRecord(dir, id)
      expect(read.ok ? 'ok' : read.error).toBe('ok')
      if (read.ok) reasons.add(read.record.reason ?? '')
      reads++
      if (reads % 20 === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    expect([await exited, stderr]).toEqual([0, ''])
    expect(reasons.size).toBeGreaterThan(1) // the reader really overlapped the writer
    const last = readRecord(dir, id)
    expect(last.ok && last.record.reason).toBe(`write ${writes - 1}`)
    expect(leftovers(taskPaths(dir, id).dir)).toEqual([])
  })

  it('replaces a symlink planted at the target instead of writing through it', () => {
    const dir = freshStateDir()
    const target = path.join(dir, 'elsewhere.txt')
    writeFileSync(target, 'untouched')
    const file = path.join(dir, 'data.json')
    symlinkSync(target, file)
    // rename replaces the link itself, never the file it points to
    writeFileAtomic(file, 'new')
    expect(readFileSync(target, 'utf8')).toBe('untouched')
    expect(lstatSync(file).isSymbolicLink()).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('new')
  })
})

describe('reading records', () => {
  it('reports a missing record as missing, and a corrupt one with what is wrong', () => {
    const dir = freshStateDir()
    expect(readRecord(dir, 42)).toMatchObject({ok: false, missing: true})
    const id = createTask(dir)
    writeFileSync(taskPaths(dir, id).record, '{"schemaVersion": 1, "id": ')
    const torn = readRecord(dir, id)
    expect(torn).toMatchObject({ok: false, missing: false, id})
    expect(!torn.ok && torn.error).toMatch(/corrupt: not valid JSON/)
  })

  it('names the field that is wrong, and refuses a record claiming another id', () => {
    const dir = freshStateDir()
    const id = createTask(dir)
    const record = newRecord(id, spec) as unknown as Record<string, unknown>
    writeFileSync(taskPaths(dir, id).record, JSON.stringify({...record, status: 'dancing'}))
    const bad = readRecord(dir, id)
    expect(!bad.ok && bad.error).toMatch(/field 'status'/)
    writeFileSync(taskPaths(dir, id).record, JSON.stringify({...record, id: id + 1}))
    const other = readRecord(dir, id)
    expect(!other.ok && other.error).toMatch(new RegExp(`names id ${id + 1}, not ${id}`))
  })

  it('says a record of a newer schemaVersion was written by a newer drover, not that it is corrupt', () => {
    const dir = freshStateDir()
    const id = createTask(dir)
    writeFileSync(taskPaths(dir, id).record, JSON.stringify({...newRecord(id, spec), schemaVersion: 2}))
    expect(readRecord(dir, id)).toEqual({
      ok: false,
      id,
      missing: false,
      newer: true,
      error: 'task.json was written by a newer drover (schemaVersion 2; this drover reads up to 1): upgrade drover',
    })
  })

  posixOnly('symlinks').it('refuses a record that is a symlink', () => {
    const dir = freshStateDir()
    const id = createTask(dir)
    const elsewhere = path.join(dir, 'planted.json')
    writeFileSync(elsewhere, JSON.stringify(newRecord(id, spec)))
    rmSync(taskPaths(dir, id).record)
    symlinkSync(elsewhere, taskPaths(dir, id).record)
    const read = readRecord(dir, id)
    expect(!read.ok && read.error).toMatch(/symlink/)
  })

  it('readAllRecords keeps going past a corrupt record', () => {
    const dir = freshStateDir()
    createTask(dir)
    const bad = createTask(dir)
    createTask(dir)
    writeFileSync(taskPaths(dir, bad).record, 'not json at all')
    const reads = readAllRecords(dir)
    expect(reads.map((r) => [r.id, r.ok])).toEqual([[1, true], [2, false], [3, true]])
  })
})

describe('events', () => {
  it('appends one JSON line per event and skips a torn last line', () => {
    const dir = freshStateDir()
    const id = createTask(dir)
    const paths = taskPaths(dir, id)
    appendEvent(paths, {event: 'created', run: 1})
    appendEvent(paths, {event: 'started', run: 1, pid: 5})
    writeFileSync(paths.events, '{"event": "exi', {flag: 'a'})
    const events = readEvents(paths)
    expect(events.map((e) => e.event)).toEqual(['created', 'started'])
    expect(typeof events[0].ts).toBe('string')
  })
})

describe('sessionUuid', () => {
  it('is a version-4 UUID, different each time', () => {
    const ids = new Set<string>()
    for (let i = 0; i < 1000; i++) {
      const id = sessionUuid()
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      ids.add(id)
    }
    expect(ids.size).toBe(1000)
  })
})
