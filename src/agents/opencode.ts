// opencode (`opencode run --format json P`): everything drover knows about
// it. Measured with the real binary (1.18.33) offline: every event carries
// `sessionID`; a model response is a step (`step_start` … `step_finish`, with
// its tokens and cost); `text` and `tool_use` parts come whole, a tool's only
// once it finished — so a step in progress counts as work in flight, and a
// drain signals it between steps. No final result event: the last
// `step_finish` with reason `stop` ends the run. `--session ID` continues
// from the session's cwd (drover runs a resume there); from another cwd it
// runs the turn, prints nothing and never exits, and with `--dir` (1.18.33)
// it hangs before the turn, so a resume never adds one.

import path from 'node:path'
import {carriedTokens, keptTokens} from './argv.js'
import {clip, iso, num, obj, oneLine, str} from './json.js'
import {resetFromText} from './limits.js'
import type {AgentProfile, FoldState} from './profile.js'
import {shortArgs, type TranscriptItem} from './transcript-items.js'

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null)

const LIMIT = /\b429\b|rate.?limit|quota|Too Many Requests|usage limit/i

const partOf = (event: Record<string, unknown>) => obj(event.part) ?? {}

function errorOf(event: Record<string, unknown>): string {
  const error = obj(event.error)
  const data = obj(error?.data)
  return str(data?.message) ?? str(error?.message) ?? str(error?.name) ?? str(event.message) ?? 'error'
}

function fold(state: FoldState, type: string, event: Record<string, unknown>): void {
  const info = state.info
  const part = partOf(event)
  info.sessionId = str(event.sessionID) ?? str(part.sessionID) ?? info.sessionId
  info.lastEvent = type === 'step_finish' ? `step_finish/${str(part.reason) ?? '?'}` : type
  if (type === 'step_start') {
    info.turns += 1
    state.tools.add('step')
  }
  if (type === 'step_finish') {
    state.tools.delete('step')
    const tokens = obj(part.tokens)
    if (tokens) {
      info.inputTokens = (info.inputTokens ?? 0) + (num(tokens.input) ?? 0)
      info.outputTokens = (info.outputTokens ?? 0) + (num(tokens.output) ?? 0) + (num(tokens.reasoning) ?? 0)
    }
    const cost = num(part.cost)
    if (cost !== null) info.costUsd = (info.costUsd ?? 0) + cost
  }
  if (type === 'error') {
    state.tools.clear()
    info.error = clip(errorOf(event))
  }
}

function usageLimit(type: string, event: Record<string, unknown>, now: number) {
  if (type !== 'error') return null
  const said = errorOf(event)
  const raw = JSON.stringify(event.error ?? {})
  if (!LIMIT.test(said) && !/"statusCode":\s*429/.test(raw)) return null
  return {message: oneLine(said), resetAt: iso(resetFromText(`${said} ${raw}`, now))}
}

function transcript(type: string, event: Record<string, unknown>): TranscriptItem[] {
  const part = partOf(event)
  switch (type) {
    case 'step_start':
      return []
    case 'text':
      return text(part.text) ? [{kind: 'text', text: part.text as string}] : []
    case 'reasoning':
      return text(part.text) ? [{kind: 'thinking', text: part.text as string}] : []
    case 'tool_use': {
      const st = obj(part.state) ?? {}
      const failed = st.status === 'error'
      return [
        {kind: 'tool', name: text(part.tool) ?? '?', args: shortArgs(st.input)},
        {kind: 'result', text: text(st.output) ?? text(st.error) ?? '', isError: failed},
      ]
    }
    case 'step_finish': {
      if (part.reason !== 'stop') return []
      const tokens = obj(part.tokens)
      const total = tokens ? (num(tokens.total) ?? (num(tokens.input) ?? 0) + (num(tokens.output) ?? 0)) : null
      return [{kind: 'final', ok: true, text: `session ${text(event.sessionID) ?? '?'}`, costUsd: num(part.cost), turns: null, tokens: total, durationMs: null}]
    }
    case 'error':
      return [{kind: 'error', text: errorOf(event)}]
    default:
      return []
  }
}

const BINARIES = ['opencode']

export const opencode: AgentProfile = {
  name: 'opencode',
  title: 'opencode',
  npmPackage: 'opencode-ai',
  testedVersion: '1.18.33',
  binaries: BINARIES,
  versionArgv: ['--version'],
  helpArgv: (head) => (head.includes('run') ? [...head, '--help'] : [...head, 'run', '--help']),
  // yargs: `--file` takes several values
  helpGrammar: {array: 'variadic'},
  headless: 'opencode run --format json …',
  start: {
    // message is an array positional, as --file is an array flag: the prompt right after the format, or after `--`
    argv: (prompt, after) => (prompt.startsWith('-') ? ['run', '--format', 'json', ...after, '--', prompt] : ['run', '--format', 'json', prompt, ...after]),
    modelFlags: ['--model', '-m'],
    // run's --auto: "auto-approve permissions that are not explicitly denied" (1.18.33); without it, opencode.json's rules
    permissionModes: {auto: ['--auto']},
    defaultPermissionMode: null,
    permissionFlags: ['--auto'],
  },
  apiKeyEnv: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY'],
  sessionStore: {
    path: (home) => path.join(process.env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'opencode', 'opencode.db'),
    describe: '$XDG_DATA_HOME/opencode/opencode.db (default ~/.local/share; sqlite, every project)',
  },
  sessionSource: 'stream',
  sessionFlags: ['--session', '--continue', '--fork'],
  noPersistenceFlags: [],
  cwdRule: 'same-cwd',
  // `run`'s flags follow `run`; what precedes it is the launcher's and opencode's own.
  splitArgs(args) {
    const runAt = args.indexOf('run')
    return runAt === -1 ? {head: [], rest: args} : {head: args.slice(0, runAt + 1), rest: args.slice(runAt + 1)}
  },
  // The prompt after `--`: `--file` and the message are both arrays, so nothing else keeps them apart.
  resumeArgv({program, head, tokens, sessionId, prompt}) {
    const kept = keptTokens(tokens, opencode.sessionFlags)
    const json = tokens.some((t) => t.flag === '--format') ? [] : ['--format', 'json']
    const run = head.includes('run') ? head : [...head, 'run']
    return [program, ...run, ...kept, ...json, '--session', sessionId, '--', prompt]
  },
  interactive: 'opencode --session <session id>',
  // The TUI is opencode without `run`; it opens in the task's folder, where the session was made.
  interactiveArgv: ({program, head, tokens, sessionId}) => [program, ...head.filter((t) => t !== 'run'), ...carriedTokens(tokens, ['--model', '--agent']), '--session', sessionId],
  fold,
  runEnding: (lastEvent) => lastEvent === 'step_finish/stop' || lastEvent === 'error',
  reportedSuccess: (info) => info.lastEvent === 'step_finish/stop' && !info.error,
  // it may exit 0 after an error event: only its last step's end is a success
  exitZeroWithoutResult: 'interrupted',
  usageLimit,
  reports: {turns: true, tokens: true, cost: true},
  drain: 'safe-point',
  leftovers: 'its shell tool starts commands in a session of their own, which survive a SIGTERM to its group: drover finds them by its task mark and stops them with the tree; it also runs `npm install @opencode-ai/plugin` in its config dir at start when that is missing',
  transcript,
}
