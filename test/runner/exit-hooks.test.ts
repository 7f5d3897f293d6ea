// Exit hooks are claimed by the supervisor that runs them, not by whoever
// starts it: a firer that dies before its supervisor runs (a `list` killed a
// millisecond after its first change) leaves them to the next firer.

import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {prepareStart} from '../../src/api/start-options.js'
import {asRunEnded, fireExitHooks, HOOK_FLAG, hooksPending, spawnSupervisor} from '../../src/runner/exit-hooks.js'
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

  it("a run's hooks hear that run's end when the task has moved on to the next run before its supervisor read it (an attach, a follow-up)", async () => {
    const stateDir = makeStateDir()
    const log = path.join(stateDir, 'hooks.txt')
    const base = newRecord(1, prepareStart({command: ['true'], onExit: `echo "$DROVER_RUN $DROVER_STATUS" >> '${log}'`}).spec)
    mkdirSync(taskPaths(stateDir, 1).dir, {recursive: true})
    const drained: TaskRecord = moveTo({...moveTo(base, {status: 'running'}), worker: {pid: 4321, startTime: '1'}}, {status: 'drained', cause: 'drain', reason: 'drained'})
    const first = drained.runs[0]
    // run 2 already running when run 1's supervisor reads the record
    const next: TaskRecord = {...drained, status: 'running', reason: null, cause: null, exitCode: null, signal: null, runs: [first, {...first, run: 2, status: 'running', reason: null, cause: null, exitCode: null, signal: null, endedAt: null, resumed: true}]}
    expect(asRunEnded(next, 1)).toMatchObject({status: 'drained', reason: 'drained', cause: 'drain'})
    expect(asRunEnded(next, 2)).toBe(next)
    writeRecord(stateDir, next)
    await exited(spawnSupervisor(runnerEntry(), [HOOK_FLAG, stateDir, '1', '1']))
    await waitFor(() => readFileSync(log, 'utf8').includes('1 '), {message: 'the hook ran'})
    expect(readFileSync(log, 'utf8')).toBe('1 drained\n')
  })
})
