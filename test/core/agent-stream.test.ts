import {appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {AgentStream} from '../../src/core/agent-stream.js'

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
const assistant = (id: string) => JSON.stringify({type: 'assistant', message: {content: []}, session_id: id}) + '\n'

describe('AgentStream', () => {
  it('reads only this run: output before its start offset belongs to an earlier session', () => {
    const file = logFile(init('old-session') + assistant('old-session'))
    const stream = new AgentStream(file, 'claude', size(file))
    appendFileSync(file, init('new-session'))
    expect(stream.read(size(file), null)).toMatchObject({sessionId: 'new-session', turns: 0})
  })

  it('holds back a partial line until its newline arrives, then counts it once', () => {
    const file = logFile()
    const stream = new AgentStream(file, 'claude', 0)
    const line = assistant('s1')
    appendFileSync(file, init('s1') + line.slice(0, 20))
    const first = stream.read(size(file), null)
    expect(first).toMatchObject({sessionId: 's1', turns: 0})
    appendFileSync(file, line.slice(20))
    expect(stream.read(size(file), first)).toMatchObject({turns: 1})
    expect(stream.read(size(file), first)).toBeNull()
  })

  it('returns null when nothing new or nothing it understands was written', () => {
    const file = logFile()
    const stream = new AgentStream(file, 'codex', 0)
    expect(stream.read(size(file), null)).toBeNull()
    appendFileSync(file, 'plain progress text\n{not json\n')
    expect(stream.read(size(file), null)).toBeNull()
  })

  it('starts over when the log was truncated under it', () => {
    const file = logFile()
    const stream = new AgentStream(file, 'codex', 0)
    appendFileSync(file, JSON.stringify({type: 'thread.started', thread_id: 't1'}) + '\n' + 'some progress text\n')
    expect(stream.read(size(file), null)).toMatchObject({sessionId: 't1'})
    // Truncation shows as a file shorter than what was read (as for tail -F).
    writeFileSync(file, JSON.stringify({type: 'thread.started', thread_id: 't2'}) + '\n')
    expect(stream.read(size(file), null)).toMatchObject({sessionId: 't2'})
  })

  it('never reads for the generic profile', () => {
    const file = logFile(init('s1'))
    expect(new AgentStream(file, 'generic', 0).read(size(file), null)).toBeNull()
  })
})
