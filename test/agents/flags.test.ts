// Learning an agent's grammar from its own --help (the real texts of claude
// 2.1.332 and `codex exec` 0.171.0 are fixtures), classifying argv by it, and
// caching what was learnt per binary.

import {chmodSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {classifyArgs, FlagTable, parseHelpFlags} from '../../src/agents/flags.js'
import {FlagLearningError, learnFlags} from '../../src/agents/flags-cache.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {claudeHelp, codexHelp} from '../helpers/agent-help.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'
import {posixOnly} from '../helpers/skips.js'

afterEach(cleanupStateDirs)

describe('parseHelpFlags', () => {
  it('reads commander help (claude): values, optional values, variadic flags and aliases', () => {
    const table = new FlagTable(parseHelpFlags(claudeHelp()))
    expect(table.get('--effort')?.arity).toBe('value')
    expect(table.get('--name')?.arity).toBe('value')
    expect(table.get('-n')?.names).toEqual(['-n', '--name'])
    expect(table.get('--resume')?.arity).toBe('optional')
    expect(table.get('-r')?.arity).toBe('optional')
    expect(table.get('--debug')?.arity).toBe('optional')
    for (const flag of ['--allowedTools', '--allowed-tools', '--disallowedTools', '--tools', '--add-dir', '--mcp-config', '--betas', '--file']) {
      expect(table.get(flag)?.arity, flag).toBe('variadic')
    }
    for (const flag of ['-p', '--print', '--verbose', '--no-session-persistence', '--continue', '--fork-session']) expect(table.get(flag)?.arity, flag).toBe('switch')
    expect(table.canonical('-c')).toBe('--continue')
  })

  it('reads clap help (codex exec): <VALUE>, <FILE>... and long-only flags', () => {
    const table = new FlagTable(parseHelpFlags(codexHelp()))
    for (const flag of ['--thread-source', '--local-provider', '--remote', '--remote-auth-token-env', '-C', '--cd', '-m', '-c', '-p', '--profile']) {
      expect(table.get(flag)?.arity, flag).toBe('value')
    }
    expect(table.get('-i')?.arity).toBe('variadic')
    for (const flag of ['--json', '--ephemeral', '--skip-git-repo-check', '--oss']) expect(table.get(flag)?.arity, flag).toBe('switch')
  })

  it('ignores wrapped description lines, even ones that mention flags', () => {
    const specs = parseHelpFlags(claudeHelp())
    expect(specs.some((s) => s.names.includes('--system-prompt[-file]'))).toBe(false)
    expect(parseHelpFlags('Usage: x\n\nnothing here\n  prompt   Your prompt\n')).toEqual([])
  })
})

describe('classifyArgs', () => {
  const table = new FlagTable(parseHelpFlags(claudeHelp()))
  const roles = (args: string[]) => classifyArgs(args, table).map((t) => `${t.role}:${t.text}`)

  it('gives a variadic flag every token up to the next flag, and an optional value only a non-flag', () => {
    expect(roles(['-p', 'task', '--allowedTools', 'Bash', 'Read', '--verbose', '--resume', '--debug', 'api'])).toEqual([
      'flag:-p', 'positional:task', 'flag:--allowedTools', 'value:Bash', 'value:Read', 'flag:--verbose', 'flag:--resume', 'flag:--debug', 'value:api',
    ])
  })

  it('keeps --flag=value whole, takes everything after -- as positional, and an unknown flag as a switch', () => {
    expect(roles(['--effort=high', '--brand-new-flag', 'prompt', '--', '--model', 'x'])).toEqual([
      'flag:--effort=high', 'flag:--brand-new-flag', 'positional:prompt', 'separator:--', 'positional:--model', 'positional:x',
    ])
  })
})

describe('learnFlags', () => {
  posixOnly('a sh script as the agent').it('runs the help once per binary and then answers from the cache, learning again when the binary changes', () => {
    const stateDir = makeStateDir()
    ensureStateDir(stateDir)
    const bin = path.join(stateDir, 'fake-agent')
    const counter = path.join(stateDir, 'runs')
    writeFileSync(counter, '')
    writeFileSync(bin, `#!/bin/sh\necho x >> "${counter}"\ncat <<'EOF'\nOptions:\n  --alpha <a>   a\n  --beta        b\n  --gamma <g...>  c\nEOF\n`)
    chmodSync(bin, 0o755)
    const env = process.env
    expect(learnFlags(stateDir, [bin, '--help'], {env, cwd: stateDir}).get('--gamma')?.arity).toBe('variadic')
    expect(learnFlags(stateDir, [bin, '--help'], {env, cwd: stateDir}).get('--alpha')?.arity).toBe('value')
    expect(readFileSync(counter, 'utf8').split('\n').filter(Boolean)).toHaveLength(1)
    // an upgrade: a different file at the same path
    writeFileSync(bin, readFileSync(bin, 'utf8').replace('--beta        b', '--beta <b>    b\n  --delta       d'))
    expect(learnFlags(stateDir, [bin, '--help'], {env, cwd: stateDir}).get('--beta')?.arity).toBe('value')
    expect(readFileSync(counter, 'utf8').split('\n').filter(Boolean)).toHaveLength(2)
  })

  posixOnly('a sh script as the agent').it('reads a help text printed to stderr, as yargs prints a subcommand\'s (opencode run --help)', () => {
    const stateDir = makeStateDir()
    ensureStateDir(stateDir)
    const bin = path.join(stateDir, 'yargs-agent')
    writeFileSync(bin, `#!/bin/sh\ncat >&2 <<'EOF'\nopencode run [message..]\n\nOptions:\n  -h, --help     show help   [boolean]\n  -s, --session  session id  [string]\n  -f, --file     files       [array]\n      --dir      directory   [string]\nEOF\n`)
    chmodSync(bin, 0o755)
    const table = learnFlags(stateDir, [bin, 'run', '--help'], {env: process.env, cwd: stateDir, grammar: {array: 'value'}})
    expect(table.get('--session')?.arity).toBe('value')
    expect(table.get('-s')?.names).toEqual(['-s', '--session'])
  })

  it('says clearly when the agent cannot be run or prints no options', () => {
    const stateDir = makeStateDir()
    ensureStateDir(stateDir)
    expect(() => learnFlags(stateDir, [path.join(stateDir, 'missing'), '--help'], {env: process.env, cwd: stateDir})).toThrow(FlagLearningError)
    expect(() => learnFlags(stateDir, [path.join(stateDir, 'missing'), '--help'], {env: process.env, cwd: stateDir})).toThrow(/not found/)
    expect(() => learnFlags(stateDir, [process.execPath, '-e', 'console.log("hello")'], {env: process.env, cwd: stateDir})).toThrow(/printed no options/)
  })

  it('names a missing working directory as such, not as a program not found', () => {
    const stateDir = makeStateDir()
    ensureStateDir(stateDir)
    const gone = path.join(stateDir, 'no-such-dir')
    expect(() => learnFlags(stateDir, ['/bin/echo', '--help'], {env: process.env, cwd: gone})).toThrow(`working directory does not exist: ${gone}`)
  })
})
