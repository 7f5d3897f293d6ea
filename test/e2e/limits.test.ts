// A provider's usage limit seen by the runner in an agent's stream: recorded
// with its reset time, made the run's reason, and shown by status and by
// logs --pretty. The agent here prints the events the real claude prints at
// its limit (test/fixtures/limits/README.md says where they were reported).

import {readFileSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {localTimeWithOffset} from '../../src/base/local-time.js'

afterEach(() => cleanupStateDirs())

describe('usage limits', () => {
  it('claude at its limit: the reason says so with the reset time; status and logs --pretty show it', async () => {
    const dir = makeStateDir()
    const lines = readFileSync(fixture('limits/claude.ndjson'), 'utf8').trim().split('\n').slice(0, 3)
    const script = `for (const line of ${JSON.stringify(lines)}) console.log(line); process.exit(1)`
    const r = await drover(dir, ['start', '--agent', 'claude', '--', process.execPath, '-e', script])
    expect(r.exitCode, r.stderr).toBe(0)
    const id = Number(r.stdout)
    const resetAt = new Date(1778565600 * 1000).toISOString()
    const record = await waitFor(() => readTask(dir, id).status === 'failed' && readTask(dir, id))
    expect(record.reason).toBe(`exit 1: usage limit, resets ${resetAt}`)
    expect(record.agentInfo.limit).toEqual({message: 'five_hour limit reached', resetAt})
    expect((await drover(dir, ['status', String(id)])).stdout).toMatch(/usage limit +five_hour limit reached; resets \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/)
    const pretty = (await drover(dir, ['logs', '--pretty', String(id)])).stdout
    expect(pretty).toContain(`✖ five_hour limit reached; resets ${localTimeWithOffset(new Date(1778565600 * 1000))}`)
    expect(pretty).toContain("✖ failed: You've hit your limit · resets 2pm (Asia/Shanghai)")
  })
})
