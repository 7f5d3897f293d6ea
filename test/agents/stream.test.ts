// Reading an agent's output as it grows: only this run's lines, partial lines
// held back, a truncated log read again, and the record written at once for a
// new session id but at most once a second otherwise.

import {appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {AgentStream} from '../../src/agents/stream.js'
import {fixture} from '../helpers/cli.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function logFile(initial = ''): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-agent-stream-'))
  dirs.push(dir)
  const file = path.join(dir, 'output.log')
  writeFileSync(file, initial)
  return file
}

const size = (file: string) => statSync(file).size
const init = (id: string) => JSON.stringify({type: 'system', subtype: 'init', session_id: id}) + '\n'
const assistant = (id: string, msg = 'msg_1') => JSON.stringify({type: 'assistant', message: {id: msg, content: []}, session_id: id}) + '\n'
const stream = (file: string, profile: 'claude' | 'codex' | 'generic', offset: number) => new AgentStream(file, profile, offset, null, null)

describe('AgentStream', () => {
  it('reads only this run: output before its start offset belongs to an earlier session', () => {
    const file = logFile(init('old-session') + assistant('old-session'))
    const s = stream(file, 'claude', size(file))
    appendFileSync(file, init('new-session'))
    expect(s.read(size(file))).toMatchObject({info: {sessionId: 'new-session', turns: 0}, persist: true})
  })

  it('holds back a partial line until its newline arrives, then counts it once', () => {
    const file = logFile()
    const s = stream(file, 'claude', 0)
    const line = assistant('s1')
    appendFileSync(file, init('s1') + line.slice(0, 20))
    expect(s.read(size(file), 1000)).toMatchObject({info: {sessionId: 's1', turns: 0}})
    appendFileSync(file, line.slice(20))
    expect(s.read(size(file), 1100)?.info).toMatchObject({turns: 1})
    expect(s.current().turns).toBe(1)
  })

  it('writes a new session id at once, anything else at most once a second', () => {
    const file = logFile()
    const s = stream(file, 'claude', 0)
    appendFileSync(file, init('s1'))
    expect(s.read(size(file), 10_000)?.persist).toBe(true)
    appendFileSync(file, assistant('s1', 'msg_1'))
    expect(s.read(size(file), 10_100)).toMatchObject({persist: false, info: {turns: 1}})
    // nothing new, but what was held back is due now
    expect(s.read(size(file), 11_000)).toMatchObject({persist: true, info: {turns: 1}})
    expect(s.read(size(file), 11_500)).toBeNull()
  })

  it('returns null when nothing new or nothing it understands was written', () => {
    const file = logFile()
    const s = stream(file, 'codex', 0)
    expect(s.read(size(file))).toBeNull()
    appendFileSync(file, 'plain progress text\n{not json\n')
    expect(s.read(size(file))).toBeNull()
  })

  it('starts over when the log was truncated under it', () => {
    const file = logFile()
    const s = stream(file, 'codex', 0)
    appendFileSync(file, JSON.stringify({type: 'thread.started', thread_id: 't1'}) + '\n' + 'some progress text\n')
    expect(s.read(size(file))?.info).toMatchObject({sessionId: 't1'})
    // Truncation shows as a file shorter than what was read (as for tail -F).
    writeFileSync(file, JSON.stringify({type: 'thread.started', thread_id: 't2'}) + '\n')
    expect(s.read(size(file))?.info).toMatchObject({sessionId: 't2'})
  })

  it('never reads for the generic profile', () => {
    const file = logFile(init('s1'))
    expect(stream(file, 'generic', 0).read(size(file))).toBeNull()
  })
})

describe("AgentStream: copilot's tokens from its session's events.jsonl", () => {
  // What the real copilot 1.0.102 logged for a run of two model calls and a resumed run of one (its other events left out).
  const logged = readFileSync(fixture('streams/copilot-session-events.jsonl'), 'utf8').trim().split('\n')
  const records = logged.map((line) => JSON.parse(line)).filter((e) => e.type === 'session.usage_record')
  const tokens = (...k: number[]) => k.reduce((sum, i) => sum + records[i].data.usage.inputTokens, 0)
  const outTokens = (...k: number[]) => k.reduce((sum, i) => sum + records[i].data.usage.outputTokens, 0)
  const turnStart = JSON.stringify({type: 'assistant.turn_start', data: {turnId: '0'}}) + '\n'

  function copilotHome() {
    const home = mkdtempSync(path.join(os.tmpdir(), 'drover-copilot-home-'))
    dirs.push(home)
    const sessionId = '5d2c1a0e-0000-4000-8000-000000000001'
    const dir = path.join(home, '.copilot', 'session-state', sessionId)
    mkdirSync(dir, {recursive: true})
    return {home, sessionId, log: path.join(dir, 'events.jsonl')}
  }

  it('counts each model call as copilot logs it, while the run lives; a resumed run counts only its own calls, the session all', () => {
    expect(records).toHaveLength(3)
    const {home, sessionId, log} = copilotHome()
    const out = logFile()
    const first = new AgentStream(out, 'copilot', 0, null, null, {env: {HOME: home}, since: 0})
    first.presetSession(sessionId)
    // stdout moved: the log is read at once
    writeFileSync(log, logged.slice(0, 2).join('\n') + '\n')
    appendFileSync(out, turnStart)
    expect(first.read(size(out), 5_000)?.info).toMatchObject({sessionId, turns: 1, inputTokens: tokens(0), outputTokens: outTokens(0), costUsd: null})
    // stdout quiet: the log is looked at again after a second, and a line cut in half waits for its end
    const rest = logged.slice(2, 5).join('\n') + '\n'
    appendFileSync(log, rest.slice(0, 40))
    expect(first.read(size(out), 6_100)).toBeNull()
    appendFileSync(log, rest.slice(40))
    expect(first.read(size(out), 6_500)).toBeNull()
    const run1 = first.read(size(out), 7_200)!.info
    expect(run1).toMatchObject({inputTokens: tokens(0, 1), outputTokens: outTokens(0, 1), session: {inputTokens: tokens(0, 1)}})

    // the resume: the log holds the first run's calls too; the run began after them
    const since = Date.parse(records[2].timestamp) - 1
    const second = new AgentStream(out, 'copilot', size(out), run1.session, sessionId, {env: {HOME: home}, since})
    appendFileSync(log, logged.slice(5).join('\n') + '\n')
    appendFileSync(out, turnStart)
    const run2 = second.read(size(out), 10_000)!.info
    expect(run2).toMatchObject({inputTokens: tokens(2), outputTokens: outTokens(2), session: {turns: 2, inputTokens: tokens(0, 1, 2), outputTokens: outTokens(0, 1, 2)}})
    // the session's totals are copilot's own: its last session.shutdown snapshot says the same
    const shutdown = logged.map((line) => JSON.parse(line)).filter((e) => e.type === 'session.shutdown').at(-1)
    expect(run2.session!.inputTokens).toBe(shutdown.data.accountingSnapshot.modelMetrics['gpt-4.1'].usage.inputTokens)
    // read again after a truncation, no call counts twice
    writeFileSync(log, logged.join('\n') + '\n')
    writeFileSync(log, logged[6] + '\n')
    appendFileSync(out, turnStart)
    expect(second.read(size(out), 20_000)?.info).toMatchObject({inputTokens: tokens(2)})
  })

  it('reads no log before the session is known, nor for a log in another HOME', () => {
    const {home, log} = copilotHome()
    writeFileSync(log, logged.join('\n') + '\n')
    const out = logFile(turnStart)
    const s = new AgentStream(out, 'copilot', 0, null, null, {env: {HOME: home}, since: 0})
    expect(s.read(size(out))?.info).toMatchObject({turns: 1, inputTokens: null})
    const elsewhere = new AgentStream(out, 'copilot', 0, null, null, {env: {HOME: path.join(home, 'other')}, since: 0})
    elsewhere.presetSession('5d2c1a0e-0000-4000-8000-000000000001')
    expect(elsewhere.read(size(out))?.info).toMatchObject({turns: 1, inputTokens: null})
  })
})
