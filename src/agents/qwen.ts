// Qwen Code (`qwen P --output-format stream-json`): everything drover knows
// about it. Measured with the real binary (0.24.4) offline: claude-shaped
// events (`system/init` names the session, `assistant` with usage, `user`
// with tool results, a final `result`), but the text and the tool call of one
// model response come as separate `assistant` messages, and `result.usage`
// is the session's total across resumes. `--resume ID` from the session's
// cwd only. Its npm launcher starts the real program with spawnSync: a
// SIGTERM to the launcher alone orphans it, so drover signals the group.

import path from 'node:path'
import {claudeShapedItems, resultError} from './claude.js'
import {carriedTokens, flagModes, keptTokens, launcherSplit, positionalMisread} from './argv.js'
import {iso, list, minus, num, obj, oneLine, str} from './json.js'
import {resetFromText} from './limits.js'
import type {AgentProfile, FoldState} from './profile.js'

// What qwen says when the provider refuses for quota or rate: the OpenAI-compatible
// API's 429 ("insufficient_quota", "rate limit"), Qwen OAuth's daily quota.
const LIMIT = /\b429\b|rate.?limit|quota|Too Many Requests|throttl/i

function fold(state: FoldState, type: string, event: Record<string, unknown>): void {
  const info = state.info
  const subtype = str(event.subtype)
  info.lastEvent = subtype ? `${type}/${subtype}` : type
  info.sessionId = str(event.session_id) ?? info.sessionId
  const message = obj(event.message)
  const blocks = list(message?.content).map(obj)
  if (type === 'assistant' && message) {
    // one model response may be several messages (its text, then its tool call): a turn starts after the prompt or a tool result
    if (!state.scratch.speaking) info.turns += 1
    state.scratch.speaking = true
    const usage = obj(message.usage)
    if (usage) {
      info.inputTokens = (info.inputTokens ?? 0) + (num(usage.input_tokens) ?? 0)
      info.outputTokens = (info.outputTokens ?? 0) + (num(usage.output_tokens) ?? 0)
    }
    for (const block of blocks) if (block?.type === 'tool_use' && str(block.id)) state.tools.add(block.id as string)
  }
  if (type === 'user') {
    state.scratch.speaking = false
    for (const block of blocks) if (block?.type === 'tool_result' && str(block.tool_use_id)) state.tools.delete(block.tool_use_id as string)
  }
  if (type === 'result') {
    state.tools.clear()
    state.scratch.speaking = false
    // the session's totals so far: this run's is the difference
    const usage = obj(event.usage)
    if (usage) {
      info.inputTokens = minus(num(usage.input_tokens), state.base?.inputTokens ?? null) ?? info.inputTokens
      info.outputTokens = minus(num(usage.output_tokens), state.base?.outputTokens ?? null) ?? info.outputTokens
    }
    if (event.is_error === true || (subtype !== null && subtype !== 'success')) info.error = resultError(event, subtype)
  }
}

function usageLimit(type: string, event: Record<string, unknown>, now: number) {
  if (type !== 'result' || (event.is_error !== true && str(event.subtype) === 'success')) return null
  const errors = list(event.errors).map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('; ')
  const error = obj(event.error)
  const said = `${str(event.result) ?? ''} ${str(error?.message) ?? ''} ${errors}`.trim()
  if (!LIMIT.test(said)) return null
  return {message: oneLine(said), resetAt: iso(resetFromText(said, now))}
}

const BINARIES = ['qwen']

export const qwen: AgentProfile = {
  name: 'qwen',
  title: 'Qwen Code',
  npmPackage: '@qwen-code/qwen-code',
  testedVersion: '0.24.4',
  binaries: BINARIES,
  versionArgv: ['--version'],
  helpArgv: (head) => [...head, '--help'],
  // yargs: its `[array]` flags take several values
  helpGrammar: {array: 'variadic'},
  headless: 'qwen … --output-format stream-json',
  start: {
    // the positional prompt (-p is deprecated); qwen ignores one after `--`, so a misread one goes as --prompt=…
    argv: (prompt, after) => [...(positionalMisread(prompt) ? [`--prompt=${prompt}`] : [prompt]), '--output-format', 'stream-json', ...after],
    modelFlags: ['--model', '-m'],
    // --approval-mode's choices in 0.24.4's --help
    permissionModes: flagModes('--approval-mode', ['plan', 'default', 'auto-edit', 'auto', 'yolo']),
    defaultPermissionMode: null,
    permissionFlags: ['--approval-mode', '--yolo', '-y'],
  },
  apiKeyEnv: ['OPENAI_API_KEY', 'DASHSCOPE_API_KEY', 'QWEN_API_KEY'],
  sessionStore: {
    path: (home, cwd) => path.join(home, '.qwen', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), 'chats'),
    describe: '~/.qwen/projects/<cwd with every non-alphanumeric as ->/chats/<id>.jsonl',
  },
  sessionSource: 'stream',
  sessionFlags: ['--resume', '--session-id', '--continue', '--fork-session', '--prompt'],
  noPersistenceFlags: ['--no-chat-recording', '--chat-recording=false'],
  cwdRule: 'same-cwd',
  splitArgs: (args, program) => launcherSplit(args, program, BINARIES, ['@qwen-code/qwen-code']),
  // qwen ignores a prompt after `--`: the new one is the last positional, after
  // `--resume ID` (a value flag, so no variadic flag before it can take it); a
  // prompt that starts with a dash goes as `--prompt=…`.
  resumeArgv({program, head, tokens, sessionId, prompt}) {
    const kept = keptTokens(tokens, qwen.sessionFlags)
    return [program, ...head, ...kept, '--resume', sessionId, prompt.startsWith('-') ? `--prompt=${prompt}` : prompt]
  },
  interactive: 'qwen --resume <session id>',
  interactiveArgv: ({program, head, tokens, sessionId}) => [
    program,
    ...head,
    ...carriedTokens(tokens, ['--model', '--approval-mode', '--yolo', '--sandbox', '--include-directories', '--auth-type', '--openai-base-url', '--allowed-tools', '--allowed-mcp-server-names']),
    '--resume',
    sessionId,
  ],
  fold,
  runEnding: (lastEvent) => lastEvent !== null && lastEvent.startsWith('result'),
  reportedSuccess: (info) => info.lastEvent === 'result/success' && !info.error,
  exitZeroWithoutResult: 'success',
  usageLimit,
  reports: {turns: true, tokens: true, cost: false},
  drain: 'safe-point',
  leftovers: 'its npm launcher (cli-entry.js) runs the real program with spawnSync, so a SIGTERM to the launcher alone would orphan it: drover signals the whole group',
  transcript: claudeShapedItems,
}
