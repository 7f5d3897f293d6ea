// Dependencies end to end: --after starts a task once its dependencies all
// succeeded and ends it `skipped` (the reason naming the dependency) when one
// did not; --after-ended waits for any end; unknown ids are a usage error that
// writes nothing; `start ID` of a skipped task queues it again.

import {mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {jobs, statusOf} from '../helpers/queue-jobs.js'
import {startOk, cleanupStateDirs, drover, isAlive, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

vi.setConfig({testTimeout: 120_000})
afterEach(() => cleanupStateDirs())

describe('dependencies', () => {
  it('--after waits (queued, with the reason) and starts when every dependency succeeded', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const a = await startOk(dir, ['--name', 'first', ...j.argv('a')])
    const b = await startOk(dir, j.argv('b'))
    const c = await startOk(dir, ['--after', 'first', '--after', String(b), ...j.argv('c')])
    const shown = json(await drover(dir, ['status', String(c), '--json']))
    expect(shown).toMatchObject({status: 'queued', after: [a, b], reason: `waiting for tasks ${a}, ${b} to succeed`})
    j.release('a')
    await waitFor(() => statusOf(dir, a) === 'succeeded')
    expect(statusOf(dir, c)).toBe('queued')
    j.release('b')
    // b's runner hands on: c starts with no drover command in between.
    await waitFor(() => j.started('c'), {message: 'c started'})
    j.release('c')
    await waitFor(() => statusOf(dir, c) === 'succeeded')
  })

  it('a failed dependency skips its dependents down a chain and across a diamond; --after-ended runs anyway', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const top = await startOk(dir, j.argv('top', 3))
    const left = await startOk(dir, ['--after', String(top), ...j.argv('left')])
    const right = await startOk(dir, ['--after-ended', String(top), ...j.argv('right')])
    const bottom = await startOk(dir, ['--after', `${left},${right}`, ...j.argv('bottom')])
    const cleanup = await startOk(dir, ['--after-ended', String(bottom), ...j.argv('cleanup')])
    j.release('top')
    await waitFor(() => j.started('right'), {message: 'right ran after top ended'})
    expect(readTask(dir, left)).toMatchObject({status: 'skipped', reason: `dependency ${top} failed (exit 3)`})
    j.release('right')
    await waitFor(() => statusOf(dir, bottom) === 'skipped')
    expect(readTask(dir, bottom).reason).toBe(`dependency ${left} skipped (dependency ${top} failed (exit 3))`)
    await waitFor(() => j.started('cleanup'), {message: 'cleanup ran after bottom was skipped'})
    j.release('cleanup')
    await waitFor(() => statusOf(dir, cleanup) === 'succeeded')
    expect(j.started('left') || j.started('bottom')).toBe(false)
    const table = (await drover(dir, ['list'])).stdout
    expect(table).toMatch(new RegExp(`${left}\\s+skipped`))

    // start ID of a skipped task whose dependency still failed would be skipped again at once: refused, saying why (exit 4)
    const again = await drover(dir, ['start', String(left)])
    expect(again.exitCode).toBe(4)
    expect(again.stderr.trim()).toBe(
      `drover: task ${left} would be skipped again at once: dependency ${top} failed (exit 3); start task ${top} again first (it queues behind it: drover start ${top} && drover start ${left})`,
    )
    expect(readTask(dir, left).runs).toHaveLength(1)
    expect(json(await drover(dir, ['start', '--json', String(left)]))).toMatchObject({error: {exitCode: 4}})
  })

  it('unknown dependencies are a usage error (exit 2) and nothing is written', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const a = await startOk(dir, j.argv('a'))
    for (const flag of ['--after', '--after-ended']) {
      const r = await drover(dir, ['start', flag, `${a},99`, ...j.argv('x')])
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toContain(`${flag}: no task 99`)
    }
    expect(readdirSync(path.join(dir, 'tasks')).filter((n) => /^\d+$/.test(n))).toEqual([String(a)])
    j.release('a')
  })

  it('an empty or blank dependency (an unset variable) is a usage error, not a dropped guard', async () => {
    const dir = makeStateDir()
    const a = await startOk(dir, ['--', process.execPath, '-e', ''])
    for (const [flag, value] of [['--after', ''], ['--after-ended', ''], ['--after', ' '], ['--after', `${a},`], ['--after-ended', `, ${a}`]]) {
      const r = await drover(dir, ['start', flag, value, '--', process.execPath, '-e', ''])
      expect(r.exitCode, `${flag} '${value}'`).toBe(2)
      expect(r.stderr).toContain(`${flag} needs task ids or names, got an empty one`)
    }
    expect(readdirSync(path.join(dir, 'tasks')).filter((n) => /^\d+$/.test(n))).toEqual([String(a)])
  })

  it('start ID of a skipped task queues it again and it runs once its dependency succeeded', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const flag = path.join(mkdtempSync(path.join(os.tmpdir(), 'drover-flag-')), 'ok')
    const dep = await startOk(dir, ['--', process.execPath, '-e', `process.exit(require('fs').existsSync(${JSON.stringify(flag)}) ? 0 : 1)`])
    await waitFor(() => statusOf(dir, dep) === 'failed')
    const child = await startOk(dir, ['--after', String(dep), ...j.argv('child')])
    await waitFor(() => statusOf(dir, child) === 'skipped')
    expect(readTask(dir, child).reason).toBe(`dependency ${dep} failed (exit 1)`)
    writeFileSync(flag, '')
    expect((await drover(dir, ['start', String(dep)])).exitCode).toBe(0)
    await waitFor(() => statusOf(dir, dep) === 'succeeded')
    const again = await drover(dir, ['start', String(child)])
    expect(again.exitCode, again.stderr).toBe(0)
    await waitFor(() => j.started('child'), {message: 'the skipped task ran on its second run'})
    expect(readTask(dir, child).runs.length).toBe(2)
    j.release('child')
    await waitFor(() => statusOf(dir, child) === 'succeeded')
  })

  it('a dependency whose runner and worker were SIGKILLed is found out at the next command; dependents wait for it to come back, and are skipped once it is cancelled', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const dep = await startOk(dir, j.argv('dep'))
    const child = await startOk(dir, ['--after', String(dep), ...j.argv('child')])
    await waitFor(() => j.started('dep'))
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(dep), 'runner.json'), 'utf8')).pid
    const worker = readTask(dir, dep).worker.pid
    process.kill(runner, 'SIGKILL')
    process.kill(-worker, 'SIGKILL')
    await waitFor(() => !isAlive(runner) && !isAlive(worker), {timeout: 20_000})
    // Any command: `queue` reads no task itself, yet the dependency is reconciled.
    await drover(dir, ['queue'])
    expect(readTask(dir, dep)).toMatchObject({status: 'lost', desired: 'running'})
    // Lost while meant to run: resume --interrupted would bring it back, so the dependent waits.
    expect(statusOf(dir, child)).toBe('queued')
    expect((await drover(dir, ['cancel', String(dep)])).exitCode).toBe(0)
    await drover(dir, ['queue'])
    await waitFor(() => statusOf(dir, child) === 'skipped')
    expect(readTask(dir, child).reason).toMatch(new RegExp(`^dependency ${dep} cancelled`))
  })
})
