// The zsh script in a real zsh in a real terminal (tmux): loaded both ways
// the script says (eval'd after compinit, and saved as _drover in $fpath), Tab
// pressed on real command lines against a state dir with real tasks.

import {execFileSync} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {makeTempDir} from '../../helpers/cli.js'
import {endTasks, installed, openTerminal, pathWithDrover, stateWithTasks, type Tasks, type Terminal} from './shells.js'

let tasks: Tasks
let PATH: string
let script: string
let terminal: Terminal | undefined

const runs = installed('zsh') && installed('tmux')

beforeAll(async () => {
  if (!runs) return
  tasks = await stateWithTasks()
  PATH = pathWithDrover()
  script = execFileSync('drover', ['completion', 'zsh'], {env: {...process.env, PATH}, encoding: 'utf8'})
}, 60_000)
afterEach(() => terminal?.kill())
afterAll(() => endTasks(tasks))

/** zsh with compinit and the script loaded, at a prompt `> `. */
async function zsh(load: 'eval' | 'fpath'): Promise<Terminal> {
  const home = makeTempDir('drover-zsh-home-')
  const functions = path.join(home, 'functions')
  mkdirSync(functions)
  writeFileSync(path.join(functions, '_drover'), script)
  writeFileSync(path.join(home, 'drover.zsh'), script)
  const setup = load === 'eval' ? 'autoload -U compinit && compinit -u && eval "$(<~/drover.zsh)"' : 'fpath=(~/functions $fpath) && autoload -U compinit && compinit -u'
  terminal = openTerminal(['zsh', '-f'], {HOME: home, PATH, DROVER_STATE_DIR: tasks.stateDir})
  terminal.type(`${setup}; PS1='> '; clear`)
  terminal.keys('Enter')
  await terminal.waitFor(/^>$/m) // tmux drops trailing blanks
  return terminal
}

/** Types a line, presses Tab, and waits for the screen to match. */
async function tab(t: Terminal, line: string, match: RegExp): Promise<string> {
  t.keys('C-u')
  t.type(line)
  t.keys('Tab')
  return t.waitFor(match)
}

describe.skipIf(!runs)(`zsh completion${runs ? '' : ' [skipped: needs zsh and tmux]'}`, () => {
  it.each(['eval', 'fpath'] as const)('offers the tasks, with what they are, for TASK (loaded by %s)', async (load) => {
    const t = await zsh(load)
    const screen = await tab(t, 'drover logs ', /:latest\s+-- the newest task/)
    expect(screen).toMatch(new RegExp(`^${tasks.sleeper}\\s+-- sleeper running `, 'm'))
    expect(screen).toMatch(/^build\.v2\s+-- \d+ succeeded /m)
    expect(screen).toMatch(/^sleeper\s+-- \d+ running/m)
  })

  it('completes :latest, a name, and TASK of start --after and queue move', async () => {
    const t = await zsh('eval')
    await tab(t, 'drover status :la', /^> drover status :latest$/m)
    await tab(t, 'drover stop sl', /^> drover stop sleeper$/m)
    await tab(t, 'drover start --after bu', /^> drover start --after build\.v2$/m)
    await tab(t, 'drover queue move sle', /^> drover queue move sleeper$/m)
    await tab(t, `drover --state-dir ${tasks.stateDir} wait :`, /wait :latest$/m)
  })

  it('completes commands and flags, with their descriptions', async () => {
    const t = await zsh('eval')
    const commands = await tab(t, 'drover st', /^stop\s+-- /m)
    expect(commands).toMatch(/^start\s+-- Start a command/m)
    const flags = await tab(t, 'drover logs --fo', /^> drover logs --follow$/m)
    expect(flags).not.toContain('--full')
  })
})
