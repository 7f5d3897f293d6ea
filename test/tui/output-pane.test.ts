// The preview's lines: chunks cut anywhere, the line being written shown,
// bounded memory, and an agent's events as its transcript.

import {describe, expect, it} from 'vitest'
import {MAX_LINE_CHARS, MAX_LINES, OutputPane} from '../../src/tui/output-pane.js'

const plain = (style: string, text: string) => text

describe('OutputPane', () => {
  it('joins chunks cut mid-line and shows the line being written', () => {
    const pane = new OutputPane({pretty: false, agent: 'generic', paint: plain})
    pane.append('one\ntw')
    expect(pane.view()).toEqual(['one', 'tw'])
    pane.append('o\nprompt> ')
    expect(pane.view()).toEqual(['one', 'two', 'prompt> '])
    pane.append('yes\n')
    expect(pane.view()).toEqual(['one', 'two', 'prompt> yes'])
  })

  it('keeps the last MAX_LINES lines, each cut to MAX_LINE_CHARS', () => {
    const pane = new OutputPane({pretty: false, agent: 'generic', paint: plain})
    for (let chunk = 0; chunk < 30; chunk++) pane.append(Array.from({length: 1000}, (_, i) => `line ${chunk * 1000 + i}`).join('\n') + '\n')
    const view = pane.view()
    expect(view).toHaveLength(MAX_LINES)
    expect(view.at(-1)).toBe('line 29999')
    expect(view[0]).toBe(`line ${30_000 - MAX_LINES}`)
    expect(pane.dropped).toBe(30_000 - MAX_LINES)
    pane.append('x'.repeat(100_000) + '\n')
    expect(pane.view().at(-1)!.length).toBe(MAX_LINE_CHARS)
  })

  it("renders an agent's event lines as its transcript, and holds back half an event", () => {
    const pane = new OutputPane({pretty: true, agent: 'claude', paint: plain})
    const tool = JSON.stringify({type: 'assistant', message: {content: [{type: 'tool_use', name: 'Bash', input: {command: 'npm test'}}]}})
    pane.append(tool.slice(0, 20))
    expect(pane.view()).toEqual([])
    pane.append(tool.slice(20) + '\n')
    expect(pane.view()).toEqual(['→ Bash npm test'])
    pane.append('plain stderr line\n')
    expect(pane.view().at(-1)).toBe('plain stderr line')
  })
})
