// The fish script in a real fish: saved where fish looks for completions,
// asked with `complete -C LINE` (what fish computes on Tab) against a state
// dir with real tasks.

import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {makeTempDir} from '../../helpers/cli.js'
import {endTasks, installed, pathWithDrover, sq, stateWithTasks, type Tasks} from './shells.js'

let tasks: Tasks
let PATH: string
let home: string

const runs = installed('fish')

beforeAll(async () => {
  if (!runs) return
  tasks = await stateWithTasks()
  PATH = pathWithDrover()
  home = makeTempDir('drover-fish-home-')
  const completions = path.join(home, '.config', 'fish', 'completions')
  mkdirSync(completions, {recursive: true})
  // where the script says to save it: fish loads it on the first Tab after `drover`
  writeFileSync(path.join(completions, 'drover.fish'), execFileSync('drover', ['completion', 'fish'], {env: {...process.env, PATH}, encoding: 'utf8'}))
}, 60_000)
afterAll(() => endTasks(tasks))

/** fish's completions for each line: [word, description] pairs, one list per line. */
function complete(lines: string[], env: Record<string, string> = {}): [string, string][][] {
  const calls = lines.map((line) => `complete -C ${sq(line)}; echo --end--`).join('; ')
  const out = execFileSync('fish', ['-c', calls], {env: {PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), DROVER_STATE_DIR: tasks.stateDir, ...env}, encoding: 'utf8'})
  return out
    .split('--end--\n')
    .slice(0, -1)
    .map((block) => block.split('\n').filter(Boolean).map((l) => l.split('\t') as [string, string]))
}
const words = (pairs: [string, string][]) => pairs.map(([w]) => w).sort()

describe.skipIf(!runs)(`fish completion${runs ? '' : ' [skipped: needs fish]'}`, () => {
  it('offers the tasks — ids, names and :latest, described — for every command that takes TASK', () => {
    const {sleeper, build, last} = tasks
    const all = [String(sleeper), String(build), String(last), ':latest', 'build.v2', 'sleeper'].sort()
    const commands = ['status', 'stop', 'drain', 'resume', 'logs', 'cancel', 'rm', 'diff', 'wait', 'start']
    const got = complete([...commands.map((c) => `drover ${c} `), `drover logs ${sleeper} `, 'drover queue move ', 'drover start --after ', 'drover --json stop '])
    for (const offered of got) expect(words(offered)).toEqual(all)
    const described = Object.fromEntries(got[0])
    // its status, then its command — cut with … where long (a Node under a long path fills the width)
    const shown = /^(\d+) running (.*?)…?$/.exec(described.sleeper)
    expect(shown?.[1], described.sleeper).toBe(String(sleeper))
    expect(`${process.execPath} -e setTimeout(() => {}, 60000)`.startsWith(shown![2]), described.sleeper).toBe(true)
    expect(shown![2], 'some of the command is shown').toMatch(/node/)
    expect(described[':latest']).toContain(`the newest task: ${last}`)
  })

  it('completes what is typed, and reads the --state-dir on the line', () => {
    const other = {DROVER_STATE_DIR: path.join(makeTempDir('drover-other-'), 'none')}
    const [latest, name] = complete(['drover logs :la', 'drover rm bu'])
    const [elsewhere, onLine] = complete(['drover logs ', `drover --state-dir ${tasks.stateDir} logs sl`], other)
    expect(words(latest)).toEqual([':latest'])
    expect(words(name)).toEqual(['build.v2'])
    expect(elsewhere).toEqual([])
    expect(words(onLine)).toEqual(['sleeper'])
  })

  it('offers no task where none goes, and commands, flags and values where they go', () => {
    const [second, list, commands, flags, agent, shells] = complete([`drover status ${tasks.sleeper} `, 'drover list ', 'drover st', 'drover logs --fo', 'drover start --agent co', 'drover completion '])
    for (const offered of [second, list]) expect(words(offered)).not.toContain(':latest')
    expect(words(commands)).toEqual(['start', 'status', 'stop'])
    expect(commands.find(([w]) => w === 'stop')![1]).toMatch(/^Stop tasks/)
    expect(words(flags)).toEqual(['--follow'])
    expect(words(agent)).toEqual(['codex', 'copilot'])
    expect(words(shells)).toEqual(['bash', 'fish', 'powershell', 'zsh'])
  })

  it('never runs what is typed', () => {
    const marker = path.join(makeTempDir('drover-typed-'), 'ran')
    complete([`drover --state-dir "(touch ${marker})" logs `, `drover logs '(touch ${marker})`])
    expect(existsSync(marker)).toBe(false)
  })
})
