// `drover attach` opens each agent's interactive mode on the task's session:
// the headless command's print-mode flags and prompt go, the flags that
// shape the session (model, permissions or sandbox, directories) come along,
// a launcher stays in front, and the session is named as that agent takes it.

import {describe, expect, it} from 'vitest'
import {interactiveCommand} from '../../src/agents/profiles.js'
import {FlagTable, parseHelpFlags} from '../../src/agents/flags.js'
import {profileOf} from '../../src/agents/registry.js'
import type {TaskRecord} from '../../src/state/record.js'
import {claudeFlags, codexFlags} from '../helpers/agent-help.js'

const task = (agent: string, command: string[], sessionId: string | null = 'S') =>
  ({agent, command, shell: null, cwd: '/work/p', executable: null, agentInfo: sessionId === null ? null : {sessionId}, checkpoint: null}) as unknown as TaskRecord

const yargs = (lines: string) => new FlagTable(parseHelpFlags(`Options:\n${lines}`, {array: 'variadic'}))

describe('the interactive resume of each agent', () => {
  it('claude: --resume ID with the model and permissions; -p, the output format, --verbose and the prompt go', () => {
    const argv = interactiveCommand(
      task('claude', ['claude', '-p', 'fix it', '--output-format', 'stream-json', '--verbose', '--model', 'opus', '--permission-mode', 'acceptEdits', '--max-turns', '5', '--add-dir', '/a', '/b']),
      claudeFlags(),
    )
    expect(argv).toEqual(['claude', '--model', 'opus', '--permission-mode', 'acceptEdits', '--add-dir', '/a', '/b', '--resume', 'S'])
  })

  it('claude through a launcher keeps the launcher', () => {
    expect(interactiveCommand(task('claude', ['node', '/opt/cli.js', '-p', 'x', '--model', 'm']), claudeFlags())).toEqual(['node', '/opt/cli.js', '--model', 'm', '--resume', 'S'])
  })

  it('codex: `exec` becomes `resume --no-daemon ID` with the model, sandbox and directory; --json and the prompt go', () => {
    const argv = interactiveCommand(task('codex', ['codex', 'exec', '--json', '-m', 'gpt-5.5', '-s', 'workspace-write', '-C', '/work/p', '--skip-git-repo-check', 'fix it']), codexFlags())
    expect(argv).toEqual(['codex', 'resume', '--no-daemon', '-m', 'gpt-5.5', '-s', 'workspace-write', '-C', '/work/p', 'S'])
  })

  it('gemini and qwen: --resume ID with the model and approval mode; -p and the output format go', () => {
    const t = yargs(`  -m, --model            Model  [string]
  -p, --prompt           Prompt  [string]
  -o, --output-format    Format  [string]
      --approval-mode    Mode  [string]
  -y, --yolo             Yes  [boolean]
`)
    expect(interactiveCommand(task('gemini', ['gemini', '-m', 'gemini-2.5-flash', '-p', 'go', '--output-format', 'stream-json', '-y']), t)).toEqual(['gemini', '-m', 'gemini-2.5-flash', '-y', '--resume', 'S'])
    expect(interactiveCommand(task('qwen', ['qwen', 'go', '--output-format', 'stream-json', '--approval-mode', 'yolo']), t)).toEqual(['qwen', '--approval-mode', 'yolo', '--resume', 'S'])
  })

  it('copilot: --resume=ID with the tools allowed; -p and the output format go', () => {
    const t = new FlagTable(parseHelpFlags(`  -p, --prompt <text>
      --output-format <format>
      --allow-all-tools
      --model <model>
      --no-auto-update
`))
    expect(interactiveCommand(task('copilot', ['copilot', '-p', 'go', '--output-format', 'json', '--allow-all-tools', '--model', 'gpt-4.1', '--no-auto-update']), t)).toEqual([
      'copilot',
      '--allow-all-tools',
      '--model',
      'gpt-4.1',
      '--no-auto-update',
      '--resume=S',
    ])
  })

  it('opencode: the TUI (no `run`) on --session ID with the model; the format and the prompt go', () => {
    const t = yargs(`  -m, --model     model  [string]
      --format    format  [string]
  -s, --session   session  [string]
`)
    expect(interactiveCommand(task('opencode', ['opencode', 'run', '--format', 'json', '-m', 'fake/fake-model', 'go']), t)).toEqual(['opencode', '-m', 'fake/fake-model', '--session', 'S'])
  })

  it('no session, nothing to open', () => {
    expect(interactiveCommand(task('claude', ['claude', '-p', 'x'], null), claudeFlags())).toBeNull()
  })

  it('every agent says its interactive resume for the help', () => {
    for (const name of ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'opencode']) expect(profileOf(name)!.interactive).toMatch(new RegExp(`^${name} .*<session id>`))
  })
})
