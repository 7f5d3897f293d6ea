import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {Wakeup} from '../../src/tasks/wakeup.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('Wakeup', () => {
  it('a sleep ends at its poll interval when nothing happens', async () => {
    const wakeup = new Wakeup()
    const started = Date.now()
    await wakeup.sleep(80)
    expect(Date.now() - started).toBeGreaterThanOrEqual(70)
    wakeup.close()
  })

  it('a change to a watched folder ends the sleep early', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-wakeup-'))
    dirs.push(dir)
    const wakeup = new Wakeup().watch([dir])
    const started = Date.now()
    setTimeout(() => writeFileSync(path.join(dir, 'task.json'), '{}'), 50)
    await wakeup.sleep(20_000)
    expect(Date.now() - started).toBeLessThan(10_000)
    wakeup.close()
  })

  it('wake() ends the sleep at once, and a path that cannot be watched is left to the poll', async () => {
    const wakeup = new Wakeup().watch([path.join(os.tmpdir(), 'drover-no-such-dir', 'x')])
    setTimeout(wakeup.wake, 30)
    const started = Date.now()
    await wakeup.sleep(20_000)
    expect(Date.now() - started).toBeLessThan(10_000)
    wakeup.close()
  })
})
