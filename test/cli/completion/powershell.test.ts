// The PowerShell script cannot run here (no PowerShell on the test machines):
// its text is checked instead — every command's TASK position and flags as
// oclif describes them, quoting that survives any description, the listing it
// calls in the shape it calls it — and that listing runs for real.

import {execFileSync} from 'node:child_process'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {powershellScript} from '../../../src/cli/completion/powershell.js'
import type {CommandSpec} from '../../../src/cli/completion/spec.js'
import {BIN, makeTempDir} from '../../helpers/cli.js'
import {endTasks, stateWithTasks, type Tasks} from './shells.js'

let tasks: Tasks
let script: string

beforeAll(async () => {
  tasks = await stateWithTasks()
  script = execFileSync(process.execPath, [BIN, 'completion', 'powershell'], {encoding: 'utf8'})
}, 60_000)
afterAll(() => endTasks(tasks))

const QUOTES = /['\u2018\u2019\u201a\u201b]/
/** The script with its single-quoted strings taken out (a quote inside one is doubled). */
const outsideStrings = (text: string) => text.replace(/['\u2018\u2019\u201a\u201b](?:[^'\u2018\u2019\u201a\u201b]|['\u2018\u2019\u201a\u201b]{2})*['\u2018\u2019\u201a\u201b]/g, 'S')

/** The entry of one command in the script's table. */
function entry(id: string): string {
  const start = script.indexOf(`    '${id}' = @{`)
  expect(start, id).toBeGreaterThan(0)
  return script.slice(start, script.indexOf('\n    }', start))
}

describe('the PowerShell script', () => {
  it('registers a native completer for drover', () => {
    expect(script).toContain("Register-ArgumentCompleter -Native -CommandName 'drover' -ScriptBlock {")
    expect(script).toContain('param($wordToComplete, $commandAst, $cursorPosition)')
  })

  it('knows where each command takes TASK', () => {
    for (const id of ['logs', 'stop', 'drain', 'resume', 'cancel', 'rm', 'wait']) expect(entry(id)).toContain("Task = 'all'")
    for (const id of ['status', 'diff', 'start']) expect(entry(id)).toContain("Task = 'first'")
    expect(entry('queue')).toContain("Task = 'move'")
    expect(entry('list')).toContain("Task = 'none'")
    expect(entry('start')).toContain("TaskFlags = @('--after', '--after-ended')")
    expect(entry('logs')).toContain("@('--follow', 'follow new output until the task ends')")
    expect(entry('start')).toMatch(/'--agent' = @\('claude', 'codex'/)
    expect(entry('completion')).toContain("Args = @('bash', 'zsh', 'fish', 'powershell')")
  })

  it('balances its quotes, braces and parentheses', () => {
    const code = outsideStrings(script.split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n'))
    expect(code).not.toMatch(QUOTES)
    for (const [open, close] of [['{', '}'], ['(', ')']]) expect(code.split(open).length, open).toBe(code.split(close).length)
  })

  it('doubles every kind of quote PowerShell ends a string at, in any description', () => {
    const spec: CommandSpec = {
      id: 'logs',
      summary: "it's a ‘test’ of ‚quotes‛",
      task: 'all',
      firstArgOptions: [],
      flags: [{long: ['--odd'], short: null, takesValue: false, options: [], task: false, description: "don't $(Remove-Item x) `n"}],
    }
    const text = powershellScript([spec], 'drover')
    expect(text).toContain("Summary = 'it''s a ‘‘test’’ of ‚‚quotes‛‛'")
    expect(text).toContain("@(, @('--odd', 'don''t $(Remove-Item x) `n'))")
    expect(outsideStrings(text.split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n'))).not.toMatch(QUOTES)
  })

  it('calls the listing as the listing answers: task-refs [--state-dir DIR] [WORD], without --', () => {
    expect(script).toContain("$ask = @('task-refs')")
    expect(script).toContain("$ask += @('--state-dir', $stateDir)")
    const elsewhere = path.join(makeTempDir('drover-other-'), 'none')
    const refs = (args: string[]) => execFileSync(process.execPath, [BIN, 'task-refs', ...args], {env: {...process.env, DROVER_STATE_DIR: elsewhere}, encoding: 'utf8'})
    const lines = refs(['--state-dir', tasks.stateDir, 'sl']).split('\n').filter(Boolean)
    expect(lines.map((l) => l.split('\t')[0])).toContain('sleeper')
    for (const line of lines) expect(line).toMatch(/^[^\t]+\t[^\t]*$/)
    expect(refs(['--state-dir', tasks.stateDir])).toBe(refs(['--state-dir', tasks.stateDir, '--']))
  })
})
