// Every way a run can end, decided in one place: a graded stop (with a drain's
// checkpoint), an adopted worker (no exit status), an exit code, a signal, and
// a failure on a full disk.

import {describe, expect, it} from 'vitest'
import {emptyAgentInfo} from '../../src/agents/events.js'
import {newRecord} from '../../src/tasks/launch.js'
import type {StopOutcome} from '../../src/process/process-tree.js'
import {runEnd, UNKNOWN_EXIT, type RunSeen} from '../../src/runner/run-outcome.js'
import {planFor} from '../../src/process/stop-plan.js'
import {moveTo} from '../helpers/record-moves.js'

const record = moveTo(
  newRecord(4, {command: ['claude', '-p', 'x'], shell: null, name: null, cwd: '/w', env: {}, agent: 'claude', policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}}),
  {status: 'running'},
)
const seen = (over: Partial<RunSeen>): RunSeen => ({record, exit: {code: 0, signal: null}, stop: null, adopted: false, sessionDir: '/s', diskFull: () => false, ...over})
const stop = (cause: 'drain' | 'stop', over: Partial<StopOutcome> = {}): StopOutcome => ({plan: planFor(cause), killedAfterMs: null, forced: false, atSafePoint: false, tookMs: 1200, ...over})

describe('runEnd', () => {
  it('an exit code or a signal, saying when the disk was full', () => {
    expect(runEnd(seen({}))).toEqual({status: 'succeeded', cause: 'exit', reason: 'exit 0', exitCode: 0, signal: null})
    expect(runEnd(seen({exit: {code: 3, signal: null}}))).toMatchObject({status: 'failed', cause: 'exit', reason: 'exit 3', exitCode: 3})
    expect(runEnd(seen({exit: {code: null, signal: 'SIGSEGV'}, diskFull: () => true}))).toMatchObject({status: 'failed', cause: 'signal', reason: 'killed by SIGSEGV (no space left on device)', signal: 'SIGSEGV'})
  })

  it('a graded stop decides the status; a drain leaves a checkpoint saying how it went', () => {
    expect(runEnd(seen({stop: stop('stop'), exit: {code: 0, signal: null}}))).toMatchObject({status: 'stopped', cause: 'stop', reason: 'stopped by request'})
    const withSession = {...record, agentInfo: {...emptyAgentInfo(), sessionId: 'S'}}
    const cooperative = runEnd(seen({record: withSession, stop: stop('drain')}))
    expect(cooperative).toMatchObject({status: 'drained', cause: 'drain', reason: 'drained', checkpoint: {sessionId: 'S', mode: 'cooperative', forced: false, tookMs: 1200}})
    const safe = runEnd(seen({stop: stop('drain', {forced: true, atSafePoint: true}), exit: {code: null, signal: 'SIGTERM'}}))
    expect(safe.checkpoint).toMatchObject({mode: 'safe-point', forced: false})
    const forced = runEnd(seen({stop: stop('drain', {forced: true, atSafePoint: true, killedAfterMs: 3000}), exit: {code: null, signal: 'SIGKILL'}}))
    expect(forced).toMatchObject({reason: 'drained, killed after 3 s', checkpoint: {mode: 'forced', forced: true}})
  })

  it('a worker that fails on its own while a drain waits keeps its failure; a stop stays stopped', () => {
    expect(runEnd(seen({stop: stop('drain'), exit: {code: 3, signal: null}}))).toEqual({status: 'failed', cause: 'exit', reason: 'exit 3', exitCode: 3, signal: null})
    expect(runEnd(seen({stop: stop('drain'), exit: {code: null, signal: 'SIGSEGV'}}))).toMatchObject({status: 'failed', cause: 'signal', signal: 'SIGSEGV'})
    // signalled by the drain itself: drained, whatever the exit
    expect(runEnd(seen({stop: stop('drain', {forced: true}), exit: {code: 143, signal: null}}))).toMatchObject({status: 'drained'})
    // exit 0 on its own: it cooperated (drover cannot tell saved-and-exited from finished)
    expect(runEnd(seen({stop: stop('drain'), exit: {code: 0, signal: null}}))).toMatchObject({status: 'drained'})
    expect(runEnd(seen({stop: stop('stop'), exit: {code: 3, signal: null}}))).toMatchObject({status: 'stopped'})
  })

  it('where exits carry no signal (Windows), a worker the stop killed is recorded killed, not by the exit code taskkill /F left', () => {
    const killed = {stop: stop('stop', {forced: true, killedAfterMs: 10_000}), exit: {code: 0, signal: null}}
    expect(runEnd(seen({...killed, exitShowsSignal: false}))).toMatchObject({status: 'stopped', cause: 'stop-killed', reason: 'killed after 10 s', exitCode: null, signal: 'SIGKILL'})
    expect(runEnd(seen({...killed, exit: {code: 1, signal: null}, exitShowsSignal: false}))).toMatchObject({exitCode: null, signal: 'SIGKILL'})
    // not killed: its own exit code stands
    expect(runEnd(seen({stop: stop('stop', {forced: true}), exit: {code: 0, signal: null}, exitShowsSignal: false}))).toMatchObject({exitCode: 0, signal: null})
    // where the OS reports signals, what it says stands
    expect(runEnd(seen({...killed, exitShowsSignal: true}))).toMatchObject({exitCode: 0, signal: null})
  })

  it('an adopted worker has no exit status: succeeded only on the agent\'s own word', () => {
    const adopted = {adopted: true, exit: {code: null, signal: null}}
    expect(runEnd(seen(adopted))).toEqual({status: 'failed', cause: 'exit-unknown', reason: UNKNOWN_EXIT, exitCode: null, signal: null})
    const success = {...record, agentInfo: {...emptyAgentInfo(), lastEvent: 'result/success'}}
    expect(runEnd(seen({...adopted, record: success}))).toMatchObject({status: 'succeeded', reason: `${UNKNOWN_EXIT}; the agent reported success`})
    const errored = {...record, agentInfo: {...emptyAgentInfo(), lastEvent: 'result/success', error: 'API Error'}}
    expect(runEnd(seen({...adopted, record: errored})).status).toBe('failed')
  })
})
