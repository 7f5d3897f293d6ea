// The package's programmatic API as a user's script meets it: a real Node
// process that imports only from 'drover' (the package's `exports`) starts a
// task, follows its output to the end and reads its exit code, watches the
// state dir's events, waits for and stops tasks, and gets typed errors.

import {execa} from 'execa'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, fixture, makeStateDir} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

describe("import {…} from 'drover'", () => {
  it('starts, follows to the end with the exit code, watches events, waits, stops one and many, removes, and throws typed errors', async () => {
    const stateDir = makeStateDir()
    const run = await execa(process.execPath, [fixture('api-client.mjs'), fixture('counter.mjs')], {
      env: {DROVER_STATE_DIR: stateDir},
      reject: false,
      timeout: 60_000,
    })
    expect(run.exitCode, String(run.stderr)).toBe(0)
    const seen = JSON.parse(String(run.stdout))
    expect(seen).toMatchObject({first: 1, output: 'line 1\nline 2\nline 3\n', exitCode: 7, status: 'failed', waited: 'succeeded', stopped: 'stopped', notFound: 3, logs: 'line 3\n'})
    expect(seen.chunks).toBeGreaterThanOrEqual(1)
    expect(seen.many).toEqual(['4:stopped', '5:stopped'])
    expect(seen.missing).toEqual(['nope'])
    expect(seen.removed).toEqual([4])
    expect(seen.rmMissing).toEqual([{id: 'nope', found: false}])
    expect(seen.refused).toBe(2)
    // no corrupt record, no task without its timeout: both refused before anything was written
    expect(seen.wrong).toEqual(['2 start option command must be an array of strings, got a string', "2 unknown start option 'timeout' (did you mean timeoutMs?)"])
    expect(seen.listed).toEqual(['1:failed', '2:succeeded', '3:stopped', '5:stopped'])
    // the events of tasks 2 and 3, in order for each
    expect(seen.seen).toEqual(expect.arrayContaining(['created:2', 'ended:2', 'created:3', 'status:3:stopped', 'ended:3']))
    expect(seen.seen.indexOf('created:3')).toBeLessThan(seen.seen.indexOf('ended:3'))
  })
})
