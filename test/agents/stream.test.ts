// Reading an agent's output as it grows: only this run's lines, partial lines
// held back, a truncated log read again, and the record written at once for a
// new session id but at most once a second otherwise.

import {appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {AgentStream} from '../../src/agents/stream.js'

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
