// Exit hooks are claimed by the supervisor that runs them, not by whoever
// starts it: a firer that dies before its supervisor runs (a `list` killed a
// millisecond after its first change) leaves them to the next firer.

import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {prepareStart} from '../../src/api/start-options.js'
import {fireExitHooks, hooksPending} from '../../src/runner/exit-hooks.js'
import {runnerEntry} from '../../src/runner/standby.js'
import {type TaskRecord} from '../../src/state/record.js'
import {taskPaths, writeRecord} from '../../src/state/store.js'
import {newRecord} from '../../src/tasks/launch.js'
import {cleanupStateDirs, makeStateDir, waitFor} from '../helpers/cli.js'
import {posixOnly} from '../helpers/skips.js'
import {moveTo} from '../helpers/record-moves.js'

afterEach(() => cleanupStateDirs())

const exited = (child: {once: (e: 'exit', f: () => void) => void} | null) => new Promise<void>((resolve) => (child ? child.once('exit', resolve) : resolve()))

posixOnly('a shell line appending to a file').describe('exit hooks', () => {
  it('run once when the first supervisor started for them dies before claiming them', async () => {
    const stateDir = makeStateDir()
    const log = path.join(stateDir, 'hooks.txt')
    const base = newRecord(1, prepareStart({command: ['true'], onExit: `echo "$DROVER_TASK_ID $DROVER_STATUS" >> '${log}'`}).spec)
    mkdirSync(taskPaths(stateDir, 1).dir, {recursive: true})
    const ended: TaskRecord = moveTo({...moveTo(base, {status: 'running'}), worker: {pid: 4321, startTime: '1'}}, {status: 'succeeded', exitCode: 0})
    writeRecord(stateDir, ended)
    expect(hooksPending(stateDir, ended)).toBe(true)
    // a supervisor that dies at once: the firer killed between starting it and its first step
    const dying = path.join(stateDir, 'dies.cjs')
    writeFileSync(dying, 'process.exit(0)\n')
    await exited(fireExitHooks(stateDir, ended, {script: dying, execArgv: []}))
    expect(hooksPending(stateDir, ended)).toBe(true)
    await exited(fireExitHooks(stateDir, ended, runnerEntry()))
    await waitFor(() => readFileSync(log, 'utf8').includes('1 succeeded'), {message: 'the hook ran'})
    expect(hooksPending(stateDir, ended)).toBe(false)
    // claimed: a third firer starts nothing
    expect(fireExitHooks(stateDir, ended, runnerEntry())).toBeNull()
    expect(readFileSync(log, 'utf8')).toBe('1 succeeded\n')
  })
})
