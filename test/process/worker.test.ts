import {mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, closeSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {checkCwd, launchWorker, workerEnv} from '../../src/process/worker.js'
import {newRecord} from '../../src/tasks/launch.js'
import {beginRun} from '../../src/state/record.js'
import {taskPaths} from '../../src/state/store.js'
import {posixOnly} from '../helpers/skips.js'
import {moveTo} from '../helpers/record-moves.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-worker-'))
  dirs.push(dir)
  return dir
}
const spec = {command: ['true'], shell: null, name: null, cwd: '/', env: {API_TOKEN: 'x'}, agent: 'generic' as const, policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}}

describe('worker launch', () => {
  it('names a missing or non-directory cwd, which spawn would report as the command missing', () => {
    const dir = tempDir()
    writeFileSync(path.join(dir, 'file'), '')
    expect(checkCwd(dir)).toBeNull()
    expect(checkCwd(path.join(dir, 'nope'))).toMatch(/^working directory does not exist/)
    expect(checkCwd(path.join(dir, 'file'))).toMatch(/^working directory is not a directory/)
  })

  it('gives the worker its drover variables, DROVER_RESUME only on a resumed run', () => {
    const record = newRecord(4, spec)
    const paths = taskPaths('/state', 4)
    const first = workerEnv('/state', record, record.runs[0], paths)
    expect(first).toMatchObject({DROVER_TASK_ID: '4', DROVER_STATE_DIR: '/state', DROVER_CONTROL_FILE: paths.control, DROVER_SESSION_DIR: paths.session, DROVER_RUN: '1', API_TOKEN: 'x'})
    expect(first.DROVER_RESUME).toBeUndefined()
    const resumed = beginRun(moveTo(moveTo(record, {status: 'running'}), {status: 'drained'}), true)
    expect(workerEnv('/state', resumed, resumed.runs[1], paths)).toMatchObject({DROVER_RESUME: '1', DROVER_RUN: '2'})
  })

  it('says the worker\'s cwd in PWD, not the starting shell\'s (opencode works in $PWD)', () => {
    const record = {...newRecord(5, spec), cwd: '/some/project'}
    const saved = process.env.PWD
    process.env.PWD = '/somewhere/else'
    try {
      expect(workerEnv('/state', record, record.runs[0], taskPaths('/state', 5)).PWD).toBe('/some/project')
    } finally {
      process.env.PWD = saved
    }
  })

  it('reports a missing command in words, and runs a real one with output in the log', async () => {
    const dir = tempDir()
    const log = path.join(dir, 'output.log')
    const fd = openSync(log, 'a')
    try {
      expect(await launchWorker([path.join(dir, 'missing')], dir, process.env, fd)).toMatchObject({ok: false, reason: expect.stringMatching(/^command not found/)})
      const launch = await launchWorker([process.execPath, '-e', 'console.log("from the worker")'], dir, process.env, fd)
      expect(launch.ok).toBe(true)
      if (!launch.ok) return
      expect(launch.identity.startTime).toMatch(/^\d+$/)
      await new Promise((resolve) => launch.child.once('exit', resolve))
    } finally {
      closeSync(fd)
    }
    expect(readFileSync(log, 'utf8')).toBe('from the worker\n')
  })

  posixOnly('execute permission bits').it('reports a file that may not be executed in words', async () => {
    const dir = tempDir()
    const fd = openSync(path.join(dir, 'output.log'), 'a')
    try {
      writeFileSync(path.join(dir, 'plain'), 'echo hi', {mode: 0o644})
      expect(await launchWorker([path.join(dir, 'plain')], dir, process.env, fd)).toMatchObject({ok: false, reason: expect.stringMatching(/^permission denied/)})
    } finally {
      closeSync(fd)
    }
  })
})
