// The chaos run's clock steps must not break processes a faked command
// leaves behind: a detached runner's later children (its exit hooks) once
// failed libfaketime's start-up after that command exited.

import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {waitFor} from '../helpers/cli.js'
import {clockShifter} from './clock.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe.skipIf(clockShifter === null)('clock steps', () => {
  it('a process started later by a faked command that has exited runs, with the clock stepped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'drover-clock-'))
    dirs.push(dir)
    const out = path.join(dir, 'out')
    // The faked shell exits at once; its background child starts `date` a second later, as a runner starts a hook.
    const shell = spawn('/bin/bash', ['-c', `(sleep 1; /bin/date +%s; echo "rc=$?") > '${out}' 2>&1 &`], {env: {...process.env, ...clockShifter!(120)}, stdio: 'ignore'})
    await new Promise((resolve) => shell.on('exit', resolve))
    const text = await waitFor(() => {
      try {
        const got = readFileSync(out, 'utf8')
        return got.includes('rc=') ? got : null
      } catch {
        return null
      }
    }, {timeout: 10_000, message: 'the late child to finish'})
    expect(text).not.toContain('libfaketime')
    expect(text).toContain('rc=0')
    const shown = Number(text.split('\n')[0])
    // two hours ahead, give or take the test's own time
    expect(Math.abs(shown - Date.now() / 1000 - 7200)).toBeLessThan(60)
  })
})
