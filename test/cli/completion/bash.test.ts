// The bash script in a real bash: `drover completion bash` is eval'd, the
// completion function is driven as bash drives it on Tab (COMP_WORDS split at
// bash's word breaks, COMP_CWORD, COMP_LINE, COMP_POINT) and COMPREPLY read
// back — against a real state dir with real tasks.

import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {makeTempDir} from '../../helpers/cli.js'
import {posixOnly} from '../../helpers/skips.js'
import {endTasks, pathWithDrover, sq, stateWithTasks, type Tasks} from './shells.js'

/**
 * The words bash makes of a line: split at blanks outside quotes (' " `), and
 * at ':' and '=' (in COMP_WORDBREAKS), each its own word.
 */
export function bashWords(line: string): string[] {
  const words: string[] = []
  let word: string | null = null
  let quote = ''
  for (const ch of line) {
    if (quote !== '') {
      word += ch
      if (ch === quote) quote = ''
    } else if (ch === ' ' || ch === '\t') {
      if (word !== null) words.push(word)
      word = null
    } else if (ch === ':' || ch === '=') {
      if (word !== null) words.push(word)
      words.push(ch)
      word = null
    } else {
      word = (word ?? '') + ch
      if (ch === "'" || ch === '"' || ch === '`') quote = ch
    }
  }
  if (word !== null) words.push(word)
  else if (words.length === 0 || /[ \t]$/.test(line)) words.push('')
  return words
}

let tasks: Tasks
let PATH: string
let script: string

beforeAll(async () => {
  tasks = await stateWithTasks()
  PATH = pathWithDrover()
  script = execFileSync('drover', ['completion', 'bash'], {env: {...process.env, PATH}, encoding: 'utf8'})
}, 60_000)
afterAll(() => endTasks(tasks))

/** What Tab offers for each line (the cursor at its end): one list per line. */
function complete(lines: string[], env: Record<string, string> = {}): string[][] {
  const calls = lines.map((line) => {
    const words = bashWords(line)
    return [
      `COMP_LINE=${sq(line)}; COMP_POINT=\${#COMP_LINE}`,
      `COMP_WORDS=(${words.map(sq).join(' ')}); COMP_CWORD=${words.length - 1}`,
      'COMPREPLY=(); _drover',
      `printf '%s\\n' "\${COMPREPLY[@]}" | sort; echo '--end--'`,
    ].join('\n')
  })
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `eval "$1"\n${calls.join('\n')}`, 'bash', script], {
    env: {PATH, HOME: makeTempDir('drover-home-'), DROVER_STATE_DIR: tasks.stateDir, ...env},
    encoding: 'utf8',
  })
  return out.split('--end--\n').slice(0, -1).map((block) => block.split('\n').filter(Boolean))
}

posixOnly('bash').describe('bash completion', () => {
  it('offers the tasks — ids, names and :latest — for every command that takes TASK', () => {
    const {sleeper, build, last} = tasks
    const all = [String(sleeper), String(build), String(last), ':latest', 'build.v2', 'sleeper'].sort()
    const lines = ['status', 'stop', 'drain', 'resume', 'logs', 'cancel', 'rm', 'diff', 'wait', 'start'].map((c) => `drover ${c} `)
    for (const offered of complete(lines)) expect(offered).toEqual(all)
    // several TASK arguments, queue move, start --after, and global flags before the command
    const [more, move, after, afterEnded, global] = complete([
      `drover logs ${sleeper} `,
      'drover queue move ',
      'drover start --after ',
      'drover start --name x --after-ended ',
      'drover --json --color stop ',
    ])
    for (const offered of [more, move, after, afterEnded, global]) expect(offered).toEqual(all)
  })

  it('completes what is typed: a name, :latest across the colon bash splits at, an id', () => {
    const [name, colon, latest, id] = complete(['drover logs sl', 'drover logs :', 'drover logs :la', `drover rm ${tasks.build}`])
    expect(name).toEqual(['sleeper'])
    // bash replaces only its last word, after the ':': the rest of :latest is what it gets
    expect(colon).toEqual([':latest'])
    expect(latest).toEqual(['latest'])
    expect(id).toEqual([String(tasks.build)])
  })

  it('reads the tasks of the --state-dir on the line, in either spelling, and not the environment’s', () => {
    const [spaced, joined, before] = complete(
      [`drover logs --state-dir ${tasks.stateDir} `, `drover logs --state-dir=${tasks.stateDir} `, `drover --state-dir ${tasks.stateDir} logs `],
      {DROVER_STATE_DIR: path.join(makeTempDir('drover-other-'), 'none')},
    )
    for (const offered of [spaced, joined, before]) expect(offered).toContain('sleeper')
    const [elsewhere] = complete(['drover logs '], {DROVER_STATE_DIR: path.join(makeTempDir('drover-other-'), 'none')})
    expect(elsewhere).toEqual([])
  })

  it('offers no task where none goes: a second argument of status, after --, a flag’s value', () => {
    const [second, dashed, value, list] = complete([`drover status ${tasks.sleeper} `, 'drover start -- ', 'drover logs --tail ', 'drover list '])
    for (const offered of [second, dashed, value, list]) expect(offered).not.toContain(':latest')
  })

  it('completes commands, flags and fixed values as before', () => {
    const [commands, flags, globals, agent, shell, help] = complete(['drover st', 'drover logs --f', 'drover --st', 'drover start --agent c', 'drover completion ', 'drover help lo'])
    expect(commands).toEqual(['start', 'status', 'stop'])
    expect(flags).toEqual(['--follow', '--full'])
    expect(globals).toEqual(['--state-dir'])
    expect(agent).toEqual(['claude', 'codex', 'copilot'])
    expect(shell).toEqual(['bash', 'fish', 'powershell', 'zsh'])
    expect(help).toEqual(['logs'])
  })

  it('never runs what is typed: quotes, spaces and $(…) in the word are only compared', () => {
    const dir = makeTempDir('drover-typed-')
    const marker = path.join(dir, 'ran')
    const typed = [`drover logs "$(touch ${marker})`, `drover logs 'a b`, `drover --state-dir "$(touch ${marker})" logs `, 'drover logs `touch x`']
    for (const offered of complete(typed)) expect(offered).toEqual([])
    expect(existsSync(marker)).toBe(false)
  })
})
