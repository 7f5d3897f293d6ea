// The headless command drover writes for `start --agent NAME --prompt P`:
// for every agent exactly the form its own docs give (the agents guide's table),
// read back by the agent's real --help grammar (fixtures of the pinned
// versions) with the prompt where the agent takes it; config.json's defaults
// and the caller's flags in their order, the caller's deciding; and every
// way to ask for one wrongly refused with one line, exit 2.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {buildHeadless, checkAgentDefaults, headlessForms} from '../../src/agents/headless.js'
import {classifyArgs} from '../../src/agents/flags.js'
import {AGENTS, knownAgentNames, profileOf} from '../../src/agents/registry.js'
import {agentCommand} from '../../src/api/start-options.js'
import {agentFlags, agentHelp, helpChoices, modesByFlag} from '../helpers/agent-help.js'
import {ROOT} from '../helpers/cli.js'
import {refusal} from '../helpers/refusal.js'

const PROMPT = 'make the failing tests pass'

// the agents guide's table and each agent's --help examples, by hand: what the grammar in each module must reproduce
const DOCUMENTED: Record<string, string[]> = {
  claude: ['claude', '-p', PROMPT, '--output-format', 'stream-json', '--verbose'],
  codex: ['codex', 'exec', '--json', PROMPT],
  gemini: ['gemini', '-p', PROMPT, '--output-format', 'stream-json'],
  qwen: ['qwen', PROMPT, '--output-format', 'stream-json'],
  copilot: ['copilot', '-p', PROMPT, '--output-format', 'json', '--allow-all-tools'],
  opencode: ['opencode', 'run', '--format', 'json', PROMPT],
}

/** Where the agent's grammar puts the prompt: a positional, or the value of its prompt flag. */
function promptToken(agent: string, command: string[], prompt: string) {
  const profile = profileOf(agent)!
  const {head, rest} = profile.splitArgs(command.slice(1), command[0])
  // codex's and opencode's flags are their subcommand's: the head holds it
  const tokens = classifyArgs(rest, agentFlags(agent))
  return {head, token: tokens.find((t) => t.text === prompt || t.text.endsWith(`=${prompt}`))}
}

describe('the headless command written for a prompt', () => {
  it.each(Object.keys(DOCUMENTED))('%s: exactly the documented form', (agent) => {
    expect(buildHeadless({agent, prompt: PROMPT}).command).toEqual(DOCUMENTED[agent])
  })

  it('covers every agent of the registry: a new one needs its documented form here', () => {
    expect(Object.keys(DOCUMENTED)).toEqual(knownAgentNames())
    expect(headlessForms().map((f) => f.command)).toEqual(Object.values(DOCUMENTED).map((argv) => argv.map((t) => (t === PROMPT ? 'P' : t)).join(' ')))
  })

  it.each(Object.keys(DOCUMENTED))("%s: its real --help grammar reads the prompt as the prompt, and knows every flag drover adds", (agent) => {
    const profile = profileOf(agent)!
    const table = agentFlags(agent)
    // a flag that takes many values, where the agent has one: a prompt after it would be taken for one of them
    const many = table.specs.find((s) => s.arity === 'variadic')?.names.at(-1) ?? '--model'
    for (const prompt of [PROMPT, '-v is not a flag here', 'review', '--help']) {
      const {command} = buildHeadless({agent, prompt, extraArgs: [many, 'some-value']})
      const {token} = promptToken(agent, command, prompt)
      expect([agent, prompt, token?.role === 'positional' || token?.text === `--prompt=${prompt}` || (token?.role === 'value' && token.flag === '--prompt')]).toEqual([agent, prompt, true])
      // the extra flags still are flags: the prompt did not end the options before them
      const tokens = classifyArgs(profile.splitArgs(command.slice(1), command[0]).rest, table)
      expect([agent, prompt, tokens.find((t) => t.text === many)?.role]).toEqual([agent, prompt, 'flag'])
    }
    const flags = [...profile.start.modelFlags, ...profile.start.permissionFlags, ...Object.values(profile.start.permissionModes).map((argv) => argv[0])]
    for (const flag of flags) expect([agent, flag, table.get(flag) !== undefined]).toEqual([agent, flag, true])
  })

  it.each(Object.keys(DOCUMENTED))('%s: its permission modes are the ones its --help lists', (agent) => {
    const modes = profileOf(agent)!.start.permissionModes
    for (const [flag, values] of modesByFlag(modes)) expect([agent, flag, values.sort()]).toEqual([agent, flag, helpChoices(agentHelp(agent), flag)?.sort()])
    // a mode that is a flag of its own names it
    for (const [mode, argv] of Object.entries(modes)) if (argv.length === 1) expect(argv[0]).toBe(`--${mode}`)
  })

  it('puts a prompt the documented form would misread where only a prompt can be', () => {
    // a leading dash would be a flag; one word may be a subcommand (codex exec review, qwen update, claude doctor)
    expect(buildHeadless({agent: 'claude', prompt: '-x'}).command).toEqual(['claude', '-p', '--output-format', 'stream-json', '--verbose', '--', '-x'])
    expect(buildHeadless({agent: 'claude', prompt: 'doctor', extraArgs: ['--effort', 'high']}).command).toEqual(['claude', '-p', '--output-format', 'stream-json', '--verbose', '--effort', 'high', '--', 'doctor'])
    expect(buildHeadless({agent: 'codex', prompt: 'review'}).command).toEqual(['codex', 'exec', '--json', '--', 'review'])
    expect(buildHeadless({agent: 'qwen', prompt: 'update'}).command).toEqual(['qwen', '--prompt=update', '--output-format', 'stream-json'])
    expect(buildHeadless({agent: 'gemini', prompt: '--yolo please'}).command).toEqual(['gemini', '--prompt=--yolo please', '--output-format', 'stream-json'])
    expect(buildHeadless({agent: 'copilot', prompt: '-h'}).command).toEqual(['copilot', '--prompt=-h', '--output-format', 'json', '--allow-all-tools'])
    expect(buildHeadless({agent: 'opencode', prompt: '-x', extraArgs: ['-f', 'a.txt']}).command).toEqual(['opencode', 'run', '--format', 'json', '-f', 'a.txt', '--', '-x'])
    // a value flag takes one word whatever it is: gemini's and copilot's -p, opencode's message needs no subcommand guard
    expect(buildHeadless({agent: 'gemini', prompt: 'mcp'}).command).toEqual(['gemini', '-p', 'mcp', '--output-format', 'stream-json'])
    expect(buildHeadless({agent: 'opencode', prompt: 'hello'}).command).toEqual(['opencode', 'run', '--format', 'json', 'hello'])
  })

  it("adds config.json's permission mode, model and flags after the documented form, the caller's flags last", () => {
    const built = buildHeadless({agent: 'claude', prompt: PROMPT, extraArgs: ['--allowedTools', 'Bash', 'Read']}, {model: 'sonnet', permissionMode: 'acceptEdits', flags: ['--effort', 'high']})
    expect(built).toEqual({
      agent: 'claude',
      command: [...DOCUMENTED.claude, '--permission-mode', 'acceptEdits', '--model', 'sonnet', '--effort', 'high', '--allowedTools', 'Bash', 'Read'],
      prompt: PROMPT,
      model: 'sonnet',
      permissionMode: 'acceptEdits',
      configFlags: ['--effort', 'high'],
      extraArgs: ['--allowedTools', 'Bash', 'Read'],
    })
    expect(buildHeadless({agent: 'codex', prompt: PROMPT}, {permissionMode: 'workspace-write', model: 'gpt-5'}).command).toEqual([...DOCUMENTED.codex, '--sandbox', 'workspace-write', '--model', 'gpt-5'])
    expect(buildHeadless({agent: 'gemini', prompt: PROMPT}, {permissionMode: 'yolo'}).command).toEqual([...DOCUMENTED.gemini, '--approval-mode', 'yolo'])
    expect(buildHeadless({agent: 'opencode', prompt: PROMPT}, {permissionMode: 'auto', model: 'p/m'}).command).toEqual([...DOCUMENTED.opencode, '--auto', '--model', 'p/m'])
  })

  it("lets the caller's flags decide the model and the permissions: the config's are then left out", () => {
    const defaults = {model: 'sonnet', permissionMode: 'acceptEdits'}
    const given = buildHeadless({agent: 'claude', prompt: PROMPT, extraArgs: ['--model=opus', '--dangerously-skip-permissions']}, defaults)
    expect(given).toMatchObject({model: null, permissionMode: null, command: [...DOCUMENTED.claude, '--model=opus', '--dangerously-skip-permissions']})
    expect(buildHeadless({agent: 'codex', prompt: PROMPT, extraArgs: ['-m', 'o3', '-s', 'read-only']}, {model: 'gpt-5', permissionMode: 'workspace-write'})).toMatchObject({model: null, permissionMode: null})
    // config.json's own flags decide as well
    expect(buildHeadless({agent: 'gemini', prompt: PROMPT}, {permissionMode: 'plan', flags: ['--yolo']})).toMatchObject({permissionMode: null, command: [...DOCUMENTED.gemini, '--yolo']})
    // a flag after the agent's own `--` is not one of its flags
    expect(buildHeadless({agent: 'claude', prompt: PROMPT, extraArgs: ['--add-dir', 'x', '--', '--model']}, defaults)).toMatchObject({model: 'sonnet'})
  })

  it("gives copilot the permission its -p needs, unless configured otherwise or its tools are named one by one", () => {
    expect(buildHeadless({agent: 'copilot', prompt: PROMPT})).toMatchObject({permissionMode: 'allow-all-tools'})
    expect(buildHeadless({agent: 'copilot', prompt: PROMPT}, {permissionMode: 'yolo'}).command).toEqual([...DOCUMENTED.copilot.slice(0, -1), '--yolo'])
    // a narrower grant is never widened behind the caller's back
    expect(buildHeadless({agent: 'copilot', prompt: PROMPT, extraArgs: ['--allow-tool', 'shell(git)']}).command).toEqual([...DOCUMENTED.copilot.slice(0, -1), '--allow-tool', 'shell(git)'])
    for (const agent of ['claude', 'codex', 'gemini', 'qwen', 'opencode']) expect(buildHeadless({agent, prompt: PROMPT}).permissionMode).toBeNull()
  })

  it('refuses what cannot be written, one line each, exit 2', () => {
    const cases: [() => unknown, RegExp][] = [
      [() => buildHeadless({agent: 'generic', prompt: PROMPT}), /^agent generic has no headless command drover can write: give the command after -- instead, or one of claude, codex/],
      [() => buildHeadless({agent: 'cluade', prompt: PROMPT}), /^agent 'cluade' is not one drover knows \(did you mean claude\?\): claude, codex/],
      [() => buildHeadless({agent: 'claude', prompt: '  \n'}), /^the prompt is empty/],
      // past what the OS passes in one argument (Linux) or one command line (Windows): said before anything is written
      [() => buildHeadless({agent: 'codex', prompt: 'x'.repeat(200 * 1024)}), /^the prompt is too long to give codex as an argument \(an? (argument|command line) of \d+ .*put the detail in a file/],
      [() => buildHeadless({agent: 'claude', prompt: PROMPT, extraArgs: ['claude', '-p', 'x']}), /give only claude's own flags.*not 'claude'/],
      [() => buildHeadless({agent: 'claude', prompt: PROMPT}, {permissionMode: 'yolo'}), /claude has no permission mode 'yolo': acceptEdits, auto/],
      [() => checkAgentDefaults({cluade: {}}, 'config.json'), /^config.json: agents.cluade: no agent of that name \(did you mean claude\?\); known: claude/],
      [() => checkAgentDefaults({generic: {}}, 'config.json'), /^config.json: agents.generic: generic has no command drover writes/],
      [() => checkAgentDefaults({codex: {permissionMode: 'acceptEdits'}}, 'config.json'), /^config.json: agents.codex.permissionMode 'acceptEdits' is not one of codex's: read-only, workspace-write, danger-full-access$/],
      [() => agentCommand({agent: 'claude', prompt: PROMPT}, {agents: {claude: {}, qwen: {permissionMode: 'auto_edit'}}, source: '/s/config.json'}), /^\/s\/config.json: agents.qwen.permissionMode 'auto_edit'/],
    ]
    for (const [f, message] of cases) {
      const got = refusal(f)
      expect(got.exitCode).toBe(2)
      expect(got.message).toMatch(message)
      expect(got.message).not.toContain('\n')
    }
  })

  it("agentCommand: the library's one way to it, with the state dir's config, the same for every front-end and every attempt", () => {
    const config = {agents: {codex: {permissionMode: 'workspace-write', flags: ['--skip-git-repo-check']}}}
    const once = agentCommand({agent: 'codex', prompt: PROMPT, extraArgs: ['--thread-source', 'user']}, config)
    expect(once.command).toEqual([...DOCUMENTED.codex, '--sandbox', 'workspace-write', '--skip-git-repo-check', '--thread-source', 'user'])
    // pure: called again (a fan-out's next attempt) it writes the same, and the config is not touched
    expect(agentCommand({agent: 'codex', prompt: PROMPT, extraArgs: ['--thread-source', 'user']}, config)).toEqual(once)
    expect(config.agents.codex.flags).toEqual(['--skip-git-repo-check'])
    expect(agentCommand({agent: 'claude', prompt: PROMPT}).command).toEqual(DOCUMENTED.claude)
  })

  it("the agents guide says every agent's permission modes, as the modules have them", () => {
    const guide = readFileSync(path.join(ROOT, 'docs', 'agents.md'), 'utf8')
    const section = guide.slice(guide.indexOf('## Start an agent from a prompt'), guide.indexOf('## Follow-ups and attach'))
    expect(section.length).toBeGreaterThan(1000)
    for (const f of headlessForms()) {
      expect([f.agent, section.includes(f.agent)]).toEqual([f.agent, true])
      for (const mode of f.permissionModes) expect([f.agent, mode, section.includes(mode)]).toEqual([f.agent, mode, true])
    }
  })

  it("every agent's module has its grammar (a new agent cannot be registered without one)", () => {
    for (const profile of AGENTS) expect([profile.name, typeof profile.start.argv, profile.start.modelFlags[0]]).toEqual([profile.name, 'function', '--model'])
  })
})
