// oclif's parse errors, raised by oclif's real parser, come out as one drover
// sentence naming the flag and the fix.

import {Parser} from '@oclif/core'
import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {describe, expect, it} from 'vitest'
import {droverWords} from '../../src/cli/oclif-errors.js'

const flags = {
  base: Flags.string({dependsOn: ['worktree']}),
  worktree: Flags.string(),
  pretty: Flags.boolean({exclusive: ['raw']}),
  raw: Flags.boolean({exclusive: ['pretty']}),
  agent: Flags.string({options: ['claude', 'codex', 'generic']}),
  turns: Flags.integer({min: 1}),
  priority: Flags.integer({max: 999}),
  name: Flags.string(),
}
const args = {task: Args.string({required: true, description: 'task id or name'})}

async function oclifMessage(argv: string[]): Promise<string> {
  try {
    await Parser.parse(argv, {flags, args, strict: true})
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`${argv.join(' ')} parsed`)
}

describe('droverWords', () => {
  it.each([
    [['--base', 'main', 't'], '--base goes with --worktree: add --worktree, or leave out --base'],
    [['--pretty', '--raw', 't'], '--pretty and --raw do not go together: give one of them'],
    [['--agent', 'cluade', 't'], "--agent: unknown value 'cluade' (did you mean claude?); use one of: claude, codex, generic"],
    [['--turns', 'x', 't'], "--turns needs a whole number, got 'x'"],
    [['--turns', '0', 't'], "--turns must be a whole number of at least 1, got '0'"],
    [['--priority', '1000', 't'], "--priority must be a whole number of at most 999, got '1000'"],
    [['--name'], '--name needs a value: --name=VALUE'],
    [['--name', 'a', '--name', 'b', 't'], '--name was given more than once: give it once'],
    [[], 'status needs a TASK: task id or name; e.g. drover status 3'],
    [['a', 'b'], "too many arguments: 'b' (see drover status --help)"],
  ])('%j', async (argv, sentence) => {
    const said = droverWords(await oclifMessage(argv), 'status')
    expect(said).toBe(sentence)
    expect(said).not.toMatch(/following|Parsing|See more help|\n/)
  })

  it('takes the example of a missing argument with fixed values from those values', async () => {
    let message = ''
    try {
      await Parser.parse([], {args: {shell: Args.string({required: true, options: ['bash', 'zsh'], description: 'bash or zsh'})}, strict: true})
    } catch (error) {
      message = (error as Error).message
    }
    expect(droverWords(message, 'completion')).toBe('completion needs a SHELL: bash or zsh; e.g. drover completion bash')
  })

  it('leaves what is not oclif\'s alone', () => {
    expect(droverWords('task 3 is running', 'stop')).toBeNull()
  })
})
