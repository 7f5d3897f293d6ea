// The view logic of `top` without a terminal: rows worded as `list` words
// them, their order, the filters, the columns fitted to a width, moving the
// selection, and whole frames at 120×32 and 60×20.

import {describe, expect, it} from 'vitest'
import type {TaskJson} from '../../src/api/task-json.js'
import {layout, naturalWidths} from '../../src/tui/columns.js'
import {ACTION_KEYS} from '../../src/tui/actions.js'
import {helpLines, KEYS, renderScreen, listHeightFor} from '../../src/tui/screen.js'
import {painter} from '../../src/tui/style.js'
import {rowOf, runtimeOf, TaskTable} from '../../src/tui/tasks.js'
import {displayWidth} from '../../src/tui/text.js'
import {initialView, moveSelection, paneTop, scrollHelp, scrollPane, settle} from '../../src/tui/view.js'

const NOW = Date.parse('2026-12-02T10:00:00Z')

function task(id: number, over: Partial<TaskJson> = {}): TaskJson {
  return {
    id, name: null, status: 'running', desired: 'running', reason: null, exitCode: null, signal: null, pid: 100 + id,
    command: ['sleep', '300'], shell: null, cwd: '/tmp', env: {}, agent: 'generic', createdAt: '2026-12-02T09:00:00Z',
    startedAt: '2026-12-02T09:59:00Z', endedAt: null, runtimeMs: 60_000, run: 1, runs: [], policies: {} as TaskJson['policies'],
    agentInfo: null, checkpoint: null, executor: 'local', jobId: null, node: null, queue: null, priority: 0, after: [], afterEnded: [],
    position: null, attempt: 1, retryMax: 0, retryAt: null, worktree: null, ...over,
  }
}

const ended = (id: number, endedAt: string, over: Partial<TaskJson> = {}) => task(id, {status: 'succeeded', exitCode: 0, endedAt, ...over})

describe('rows', () => {
  it('word the status as list does, with where a queued task waits and until when a task waits out a limit', () => {
    expect(rowOf(task(1, {status: 'queued', queue: 'gpu', position: 2, startedAt: null})).status).toBe('queued (#2 in gpu)')
    expect(rowOf(task(2, {status: 'failed', exitCode: 2, endedAt: '2026-12-02T09:59:30Z'})).status).toBe('failed (2)')
    const waiting = rowOf(task(3, {status: 'waiting', waitUntil: '2026-12-02T14:05:00'}))
    expect(waiting.status).toBe('waiting until 14:05')
  })

  it("show an agent's turns, tokens and cost, and the command as one line", () => {
    const row = rowOf(task(4, {agent: 'claude', agentInfo: {turns: 7, costUsd: 0.0421, inputTokens: 12_000, outputTokens: 345, sessionId: 's', lastEvent: null, session: null, error: null}, command: ['claude', '-p', 'fix it']}))
    expect([row.agent, row.turns, row.usage, row.command]).toEqual(['claude', '7', '12k $0.04', "claude -p 'fix it'"])
    expect(rowOf(task(5)).agent).toBe('')
  })

  it("count a live task's runtime on from its start; an ended one's is its record's", () => {
    expect(runtimeOf(rowOf(task(1)), NOW)).toBe('1m00s')
    expect(runtimeOf(rowOf(ended(2, '2026-12-02T09:59:30Z', {runtimeMs: 5000})), NOW)).toBe('5s')
  })

  it('order live tasks by id, then ended ones newest end first; filter by status, queue and text', () => {
    const table = new TaskTable({statuses: null, queue: null})
    for (const t of [ended(1, '2026-12-02T09:10:00Z'), task(5), ended(2, '2026-12-02T09:30:00Z'), task(3, {name: 'build'})]) table.put(t)
    expect(table.visible().map((r) => r.id)).toEqual([3, 5, 2, 1])
    table.setSearch('BUILD')
    expect(table.visible().map((r) => r.id)).toEqual([3])
    table.setSearch('succeeded')
    expect(table.visible().map((r) => r.id)).toEqual([2, 1])
    table.setSearch('')
    table.apply({type: 'removed', id: 5})
    expect(table.visible().map((r) => r.id)).toEqual([3, 2, 1])

    const gpu = new TaskTable({statuses: ['running'], queue: 'gpu'})
    for (const t of [task(1, {queue: 'gpu'}), task(2), ended(3, '2026-12-02T09:30:00Z', {queue: 'gpu'})]) gpu.put(t)
    expect(gpu.visible().map((r) => r.id)).toEqual([1])
    // a task that leaves the filtered statuses leaves the list
    gpu.apply({type: 'status', id: 1, from: 'running', to: 'stopped', task: ended(1, '2026-12-02T09:40:00Z', {queue: 'gpu', status: 'stopped'})})
    expect(gpu.visible()).toEqual([])
  })
})

describe('columns', () => {
  const rows = [rowOf(task(1, {name: 'a-rather-long-task-name', agent: 'claude', queue: 'gpu', agentInfo: {turns: 3, costUsd: 1.5, inputTokens: 1000, outputTokens: 10, sessionId: null, lastEvent: null, session: null, error: null}})), rowOf(task(22))]

  it('leave out columns nobody fills', () => {
    const plain = layout(naturalWidths([rowOf(task(1))]), 120).columns.map((c) => c.header)
    expect(plain).toEqual(['ID', 'NAME', 'STATUS', 'RUNTIME', 'COMMAND'])
  })

  it('drop the least needed columns first on a narrow terminal, and always fit', () => {
    const wide = layout(naturalWidths(rows), 120).columns.map((c) => c.header)
    expect(wide).toEqual(['ID', 'NAME', 'STATUS', 'QUEUE', 'AGENT', 'TURNS', 'TOKENS/COST', 'RUNTIME', 'COMMAND'])
    const narrow = layout(naturalWidths(rows), 60)
    expect(narrow.columns.map((c) => c.header)).toEqual(['ID', 'NAME', 'STATUS', 'QUEUE', 'AGENT', 'TURNS', 'COMMAND'].filter((h) => narrow.columns.some((c) => c.header === h)))
    for (const width of [40, 60, 80, 120, 200]) {
      const l = layout(naturalWidths(rows), width)
      expect(2 + l.widths.reduce((a, b) => a + b, 0) + 2 * (l.widths.length - 1)).toBeLessThanOrEqual(width)
    }
  })
})

describe('selection and scrolling', () => {
  const table = new TaskTable({statuses: null, queue: null})
  for (let id = 1; id <= 100; id++) table.put(task(id))
  const rows = table.visible()

  it('selects the first row, keeps the selection in view, clamps at the ends', () => {
    let view = settle(initialView(), rows, 10)
    expect([view.selected, view.scroll]).toEqual([1, 0])
    view = moveSelection(view, rows, 10, 15)
    expect([view.selected, view.scroll]).toEqual([16, 6])
    view = moveSelection(view, rows, 10, 'last')
    expect([view.selected, view.scroll]).toEqual([100, 90])
    view = moveSelection(view, rows, 10, 1)
    expect(view.selected).toBe(100)
    view = moveSelection(view, rows, 10, 'first')
    expect([view.selected, view.scroll]).toEqual([1, 0])
  })

  it('keeps the cursor where it was when its task leaves the list', () => {
    const view = {...initialView(), selected: 50, scroll: 45}
    const without = rows.filter((r) => r.id !== 50)
    expect(settle(view, without, 10, 49).selected).toBe(51)
  })

  it('follows the end of a pane until scrolled up, and again from the end', () => {
    expect(paneTop(null, 100, 10)).toBe(90)
    const up = scrollPane(null, 100, 10, -5)
    expect(up).toBe(85)
    expect(scrollPane(up, 100, 10, 5)).toBeNull()
    expect(scrollPane(up, 100, 10, 'first')).toBe(0)
    expect(scrollPane(0, 100, 10, 'last')).toBeNull()
  })
})

describe('a whole frame', () => {
  const frame = (width: number, height: number, mode: 'list' | 'help' | 'task' = 'list', readOnly = false, helpScroll = 0) => {
    const table = new TaskTable({statuses: null, queue: null})
    for (let id = 1; id <= 40; id++) table.put(task(id, {name: `task-${'x'.repeat(id % 30)}`, command: ['sh', '-c', 'echo ' + '日本'.repeat(id)]}))
    const rows = table.visible()
    const view = settle({...initialView(), mode, helpScroll}, rows, listHeightFor(height))
    return renderScreen({
      width, height, paint: painter(true), now: NOW, rows, layout: layout(naturalWidths(rows), width), view, readOnly,
      title: 'drover top · 40 live · 0 queued · 0 ended · /a/state/dir/that/is/long/enough/to/be/cut/somewhere',
      pane: {title: '1 task · running', lines: ['out '.repeat(50), '日本語'.repeat(40), 'last line']},
    })
  }

  it('is exactly the height, no line wider than the width, at 120×32 and 60×20 and in every mode', () => {
    for (const [w, h] of [[120, 32], [60, 20], [80, 24]]) {
      for (const mode of ['list', 'help', 'task'] as const) {
        const lines = frame(w, h, mode)
        expect(lines).toHaveLength(h)
        for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(w)
      }
    }
  })

  it('draws even a tiny window (no throw, never wider or taller)', () => {
    for (const [w, h] of [[1, 1], [10, 3], [30, 5]]) {
      const lines = frame(w, h)
      expect(lines).toHaveLength(h)
      for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(w)
    }
  })

  it('shows the selected row, the pane and the keys; read-only shows no action keys', () => {
    const lines = frame(120, 32)
    expect(lines[2]).toContain('>  1')
    expect(lines.join('\n').replace(/\u001B\[[0-9;]*m/g, '')).toMatch(/── 1 task · running ─+\n.*out out/)
    expect(lines.join('\n')).toContain('last line')
    expect(lines.at(-1)).toContain('s stop')
    // with every action the line is cut at 120 columns: never help or quit
    expect(lines.at(-1)).toContain('? help')
    expect(lines.at(-1)).toContain('q quit')
    expect(frame(120, 32, 'list', true).at(-1)).not.toContain('s stop')
    expect(frame(120, 32, 'help', true).join('\n')).not.toMatch(/\bdrain\b/)
    expect(frame(120, 32, 'help').join('\n')).toMatch(/wrap-up stop/)
  })

  it('wraps the help to a 60×20 window, never cutting a word, and scrolls it to its last line', () => {
    const plain = (lines: string[]) => lines.join('\n').replace(/\u001B\[[0-9;]*m/g, '')
    const all = helpLines(false, 60, painter(false))
    for (const line of all) expect(displayWidth(line)).toBeLessThanOrEqual(60)
    expect(all.join('\n')).not.toContain('…')
    expect(all.join(' ').replace(/\s+/g, ' ')).toContain('open the task full screen (q or Esc back)')
    const first = frame(60, 20, 'help')
    expect(plain(first)).toContain('q or Esc')
    expect(first.at(-1)).toMatch(/more.*scroll.*back/)
    const last = frame(60, 20, 'help', false, scrollHelp(0, all.length, 18, 'last'))
    expect(plain(last)).toMatch(/quit \(tasks keep running\)/)
    expect(plain(last)).toMatch(/leaves them\s+running\./)
    expect(last.at(-1)).not.toMatch(/more/)
    // a window tall enough shows it whole, and says any key goes back
    expect(frame(120, 32, 'help').at(-1)).toMatch(/any key: back/)
    // narrower than key and words side by side: the words go under the key
    for (const line of helpLines(false, 30, painter(false))) expect(displayWidth(line)).toBeLessThanOrEqual(30)
    expect(helpLines(false, 30, painter(false)).join('\n')).not.toContain('…')
  })
})

describe('the keys', () => {
  it('gives each action a key of its own, none a key of moving or viewing, and the help lists every one', () => {
    const moving = ['j', 'k', 'g', 'G', ' ', '/', '?', 'q', 'p', 'v']
    const keys = Object.keys(ACTION_KEYS)
    expect(keys).toEqual(expect.arrayContaining(['f', 'F', 't', 'm', 'x']))
    expect(new Set(Object.values(ACTION_KEYS)).size).toBe(keys.length)
    for (const key of keys) expect(moving).not.toContain(key)
    expect(KEYS.filter((k) => k.action).map((k) => k.key).sort()).toEqual([...keys].sort())
    const help = helpLines(false, 120, painter(false)).join('\n')
    for (const what of ['follow-up', 'follow-up now', 'take over in this terminal', 'merge an ended', 'discard:']) expect(help).toContain(what)
  })
})
