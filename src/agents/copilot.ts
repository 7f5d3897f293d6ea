// GitHub Copilot CLI (`copilot -p … --output-format json --allow-all-tools`):
// everything drover knows about it. Measured with the real binary (1.0.102)
// offline: many `session.*` / `assistant.*` / `tool.*` events; the session id
// only in the final `result`, so drover presets it (`--session-id=UUID`) to
// know it from the start. No tokens on stdout: each model call's tokens are
// a `session.usage_record` in the session's events.jsonl, written as the call
// ends, which drover follows beside stdout (usageLog) — live, so --max-tokens
// holds mid-run; `--usage-output-file` has only the totals, at exit. No cost:
// copilot counts premium requests, not money (`cost` there is 0 with a key of
// one's own). `--resume=ID` continues from any cwd. Its npm launcher spawnSyncs
// the native binary (a SIGTERM to the launcher alone orphans it: drover
// signals the group); SIGTERMed, it still writes `abort` and `result{exitCode:0}`.

import {homedir} from 'node:os'
import path from 'node:path'
import {carriedTokens, keptTokens, launcherSplit} from './argv.js'
import {clip, iso, list, num, obj, oneLine, str} from './json.js'
import {resetFromText} from './limits.js'
import type {AgentProfile, FoldState, LoggedUsage} from './profile.js'
import {shortArgs, type TranscriptItem} from './transcript-items.js'

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null)

const LIMIT = /\b429\b|rate.?limit|quota|Too Many Requests|usage limit/i

const dataOf = (event: Record<string, unknown>) => obj(event.data) ?? {}

function fold(state: FoldState, type: string, event: Record<string, unknown>): void {
  const info = state.info
  const data = dataOf(event)
  // ephemeral progress (deltas, background task changes) says nothing new
  if (event.ephemeral !== true) info.lastEvent = type
  if (type === 'assistant.turn_start') info.turns += 1
  if (type === 'tool.execution_start' && str(data.toolCallId)) state.tools.add(data.toolCallId as string)
  if (type === 'tool.execution_complete' && str(data.toolCallId)) state.tools.delete(data.toolCallId as string)
  if (type === 'abort') state.scratch.aborted = true
  if (type === 'session.error') info.error = clip(str(data.message) ?? str(data.errorType) ?? 'error')
  if (type === 'result') {
    state.tools.clear()
    info.sessionId = str(event.sessionId) ?? info.sessionId
    const code = num(event.exitCode)
    info.lastEvent = state.scratch.aborted ? 'result/aborted' : code === 0 ? 'result/success' : 'result/error'
    if (code !== 0 && !info.error) info.error = `exit code ${code ?? '?'}`
  }
}

function usageLimit(type: string, event: Record<string, unknown>, now: number) {
  if (type !== 'session.error') return null
  const data = dataOf(event)
  const said = `${str(data.message) ?? ''} ${str(data.errorType) ?? ''}`.trim()
  if (!LIMIT.test(said) && num(data.statusCode) !== 429) return null
  return {message: oneLine(str(data.message) ?? said), resetAt: iso(resetFromText(said, now))}
}

function transcript(type: string, event: Record<string, unknown>): TranscriptItem[] {
  const data = dataOf(event)
  switch (type) {
    case 'assistant.message': {
      const items: TranscriptItem[] = text(data.content) ? [{kind: 'text', text: data.content as string}] : []
      for (const call of list(data.toolRequests).map(obj)) items.push({kind: 'tool', name: text(call?.name) ?? '?', args: shortArgs(call?.arguments)})
      return items
    }
    case 'tool.execution_complete': {
      const result = obj(data.result)
      return [{kind: 'result', text: text(result?.content) ?? text(obj(data.error)?.message) ?? '', isError: data.success === false}]
    }
    case 'session.error':
      return [{kind: 'error', text: text(data.message) ?? 'error'}]
    case 'abort':
      return [{kind: 'error', text: `aborted${text(data.reason) ? `: ${data.reason}` : ''}`}]
    case 'result': {
      const code = num(event.exitCode)
      return [{kind: 'final', ok: code === 0, text: `session ${text(event.sessionId) ?? '?'}`, costUsd: null, turns: null, tokens: null, durationMs: num(obj(event.usage)?.sessionDurationMs)}]
    }
    default:
      return []
  }
}

/** One model call's tokens, as copilot 1.0.102 logs them: `{type: "session.usage_record", id, timestamp, data: {usage: {inputTokens, outputTokens, …}}}`. */
function loggedUsage(event: Record<string, unknown>): LoggedUsage | null {
  if (event.type !== 'session.usage_record') return null
  const usage = obj(dataOf(event).usage)
  const id = str(event.id)
  const at = Date.parse(str(event.timestamp) ?? '')
  const inputTokens = num(usage?.inputTokens)
  const outputTokens = num(usage?.outputTokens)
  if (id === null || Number.isNaN(at) || inputTokens === null || outputTokens === null) return null
  return {id, at, inputTokens, outputTokens}
}

/** copilot's home: $COPILOT_HOME, else ~/.copilot — of the worker's environment, where copilot itself looks. */
const copilotHome = (env: NodeJS.ProcessEnv) => env.COPILOT_HOME || path.join(env.HOME || env.USERPROFILE || homedir(), '.copilot')

const BINARIES = ['copilot']
const SESSION_FLAGS = ['--resume', '--session-id', '--continue', '--connect']

export const copilot: AgentProfile = {
  name: 'copilot',
  title: 'GitHub Copilot CLI',
  npmPackage: '@github/copilot',
  testedVersion: '1.0.102',
  binaries: BINARIES,
  versionArgv: ['--version'],
  helpArgv: (head) => [...head, '--help'],
  headless: 'copilot -p … --output-format json',
  start: {
    argv: (prompt, after) => [...(prompt.startsWith('-') ? [`--prompt=${prompt}`] : ['-p', prompt]), '--output-format', 'json', ...after],
    modelFlags: ['--model'],
    // its --help: --allow-all-tools is "required for non-interactive mode"; --allow-all and --yolo grant paths and URLs too
    permissionModes: {'allow-all-tools': ['--allow-all-tools'], 'allow-all': ['--allow-all'], yolo: ['--yolo']},
    defaultPermissionMode: 'allow-all-tools',
    // tools named one by one (--allow-tool) are a narrower grant than every tool: never widened behind the caller's back
    permissionFlags: ['--allow-all-tools', '--allow-all', '--yolo', '--allow-tool'],
  },
  apiKeyEnv: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN', 'COPILOT_PROVIDER_API_KEY'],
  sessionStore: {
    path: (home) => path.join(process.env.COPILOT_HOME || path.join(home, '.copilot'), 'session-state'),
    describe: '~/.copilot/session-state/<id>/events.jsonl (any cwd)',
  },
  sessionSource: 'preset',
  presetSession(argv, id) {
    const [program, ...args] = argv
    const {head, rest} = launcherSplit(args, program, BINARIES, ['@github/copilot'])
    const end = rest.includes('--') ? rest.indexOf('--') : rest.length
    const picks = rest.slice(0, end).some((a) => SESSION_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)) || a === '-r' || a.startsWith('-r='))
    return picks ? null : [program, ...head, `--session-id=${id}`, ...rest]
  },
  sessionFlags: SESSION_FLAGS,
  noPersistenceFlags: [],
  cwdRule: 'any',
  splitArgs: (args, program) => launcherSplit(args, program, BINARIES, ['@github/copilot']),
  // `--prompt=…` and `--resume=…`: no value can be taken for a flag, nor a flag for the prompt.
  resumeArgv({program, head, tokens, sessionId, prompt}) {
    const kept = keptTokens(tokens, [...SESSION_FLAGS, '--prompt'])
    return [program, ...head, ...kept, `--resume=${sessionId}`, `--prompt=${prompt}`]
  },
  interactive: 'copilot --resume=<session id>',
  interactiveArgv: ({program, head, tokens, sessionId}) => [
    program,
    ...head,
    ...carriedTokens(tokens, ['--model', '--agent', '--allow-all-tools', '--allow-tool', '--deny-tool', '--add-dir', '--allow-all-paths', '--allow-all', '--yolo', '--no-auto-update', '--disable-client-telemetry']),
    `--resume=${sessionId}`,
  ],
  fold,
  runEnding: (lastEvent) => lastEvent !== null && lastEvent.startsWith('result'),
  reportedSuccess: (info) => info.lastEvent === 'result/success' && !info.error,
  exitZeroWithoutResult: 'success',
  usageLimit,
  usageLog: {
    path: (sessionId, env) => path.join(copilotHome(env), 'session-state', sessionId, 'events.jsonl'),
    usage: loggedUsage,
  },
  reports: {turns: true, tokens: true, cost: false},
  drain: 'safe-point',
  leftovers: 'its npm launcher (npm-loader.js) runs the native binary with spawnSync, so a SIGTERM to the launcher alone would orphan it: drover signals the whole group',
  transcript,
}
