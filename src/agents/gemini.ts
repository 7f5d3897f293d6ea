// Gemini CLI (`gemini -p … --output-format stream-json`): everything drover
// knows about it. Measured with the real binary (0.61.0) offline: `init`
// names the session, assistant text comes as `message` deltas, `tool_use` /
// `tool_result` frame each tool call, `result.stats` is this run's tokens (no
// cost). `--resume ID` works from the session's cwd only (exit 42 elsewhere;
// drover runs a resume there). SIGTERMed mid-turn it exits 0 with no
// `result`: an interruption, not a success. It relaunches itself and the
// parent ignores SIGTERM: drover signals the whole group.

import path from 'node:path'
import {clip, iso, num, obj, oneLine, str} from './json.js'
import {carriedTokens, flagModes, keptTokens, launcherSplit} from './argv.js'
import {resetFromText} from './limits.js'
import type {AgentProfile, FoldState} from './profile.js'
import {shortArgs, type TranscriptItem} from './transcript-items.js'

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null)

// Google's quota errors as gemini prints them: RESOURCE_EXHAUSTED, "exceeded
// your current quota", "Quota exceeded for quota metric …", a 429.
const LIMIT = /RESOURCE_EXHAUSTED|quota|rate limit|rateLimitExceeded|\b429\b|Too Many Requests/i

/** A model response starts with its first text or tool call after the prompt or a tool's result. */
function modelSpeaks(state: FoldState): void {
  if (state.scratch.speaking) return
  state.scratch.speaking = true
  state.info.turns += 1
}

function fold(state: FoldState, type: string, event: Record<string, unknown>): void {
  const info = state.info
  info.lastEvent = type === 'result' ? `result/${str(event.status) ?? '?'}` : type
  if (type === 'init') info.sessionId = str(event.session_id) ?? info.sessionId
  if (type === 'message') {
    if (event.role === 'assistant') modelSpeaks(state)
    else state.scratch.speaking = false
  }
  if (type === 'tool_use') {
    modelSpeaks(state)
    const id = str(event.tool_id)
    if (id) state.tools.add(id)
  }
  if (type === 'tool_result') {
    state.scratch.speaking = false
    const id = str(event.tool_id)
    if (id) state.tools.delete(id)
  }
  if (type === 'error') info.error = clip(str(event.message) ?? 'error')
  if (type === 'result') {
    state.tools.clear()
    state.scratch.speaking = false
    // stats are this run's
    const stats = obj(event.stats)
    if (stats) {
      info.inputTokens = num(stats.input_tokens) ?? num(stats.input) ?? info.inputTokens
      info.outputTokens = num(stats.output_tokens) ?? info.outputTokens
    }
    if (event.status !== 'success') info.error = clip(errorText(event) ?? `status ${str(event.status) ?? '?'}`)
  }
}

function errorText(event: Record<string, unknown>): string | null {
  const error = obj(event.error)
  return str(error?.message) ?? str(event.error) ?? str(event.message)
}

function usageLimit(type: string, event: Record<string, unknown>, now: number) {
  if (type !== 'result' && type !== 'error') return null
  if (type === 'result' && event.status === 'success') return null
  const said = type === 'result' ? (errorText(event) ?? '') : (str(event.message) ?? '')
  const raw = JSON.stringify(event)
  if (!LIMIT.test(said) && !/RESOURCE_EXHAUSTED|"code":\s*429/.test(raw)) return null
  return {message: oneLine(said || 'quota exceeded'), resetAt: iso(resetFromText(`${said} ${raw}`, now))}
}

function transcript(type: string, event: Record<string, unknown>): TranscriptItem[] {
  switch (type) {
    case 'init':
      return [{kind: 'session', text: `session ${text(event.session_id) ?? '?'}${text(event.model) ? ` (model ${event.model})` : ''}`}]
    case 'message':
      return event.role === 'assistant' && text(event.content) ? [{kind: 'text', text: event.content as string}] : []
    case 'tool_use':
      return [{kind: 'tool', name: text(event.tool_name) ?? '?', args: shortArgs(event.parameters)}]
    case 'tool_result': {
      const failed = event.status !== 'success'
      return [{kind: 'result', text: text(event.output) ?? text(obj(event.error)?.message) ?? '', isError: failed}]
    }
    case 'error':
      return [{kind: 'error', text: text(event.message) ?? 'error'}]
    case 'result': {
      const stats = obj(event.stats)
      const tokens = stats ? (num(stats.total_tokens) ?? (num(stats.input_tokens) ?? 0) + (num(stats.output_tokens) ?? 0)) : null
      const ok = event.status === 'success'
      return [{kind: 'final', ok, text: ok ? '' : (errorText(event) ?? `status ${text(event.status) ?? '?'}`), costUsd: null, turns: null, tokens, durationMs: num(stats?.duration_ms)}]
    }
    default:
      return []
  }
}

const BINARIES = ['gemini']

export const gemini: AgentProfile = {
  name: 'gemini',
  title: 'Gemini CLI',
  npmPackage: '@google/gemini-cli',
  testedVersion: '0.61.0',
  binaries: BINARIES,
  versionArgv: ['--version'],
  helpArgv: (head) => [...head, '--help'],
  // yargs: `--include-directories` and the like take one value each (the flag is repeated)
  helpGrammar: {array: 'value'},
  headless: 'gemini -p … --output-format stream-json',
  start: {
    // the prompt is -p's value: one that starts with a dash goes as --prompt=…, where yargs cannot take it for a flag
    argv: (prompt, after) => [...(prompt.startsWith('-') ? [`--prompt=${prompt}`] : ['-p', prompt]), '--output-format', 'stream-json', ...after],
    modelFlags: ['--model', '-m'],
    // --approval-mode's choices in 0.61.0's --help
    permissionModes: flagModes('--approval-mode', ['default', 'auto_edit', 'yolo', 'plan']),
    defaultPermissionMode: null,
    permissionFlags: ['--approval-mode', '--yolo', '-y'],
  },
  apiKeyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS'],
  sessionStore: {
    path: (home, cwd) => path.join(home, '.gemini', 'tmp', path.basename(cwd).toLowerCase(), 'chats'),
    describe: '~/.gemini/tmp/<project>/chats/session-…-<id>.jsonl (<project> as ~/.gemini/projects.json names the cwd)',
  },
  sessionSource: 'stream',
  sessionFlags: ['--resume', '--session-id', '--session-file', '--list-sessions', '--delete-session'],
  noPersistenceFlags: [],
  cwdRule: 'same-cwd',
  splitArgs: (args, program) => launcherSplit(args, program, BINARIES, ['@google/gemini-cli']),
  // The prompt is -p's value; the new one goes as `--prompt=…`, so a prompt that starts with a dash stays a prompt.
  resumeArgv({program, head, tokens, sessionId, prompt}) {
    const kept = keptTokens(tokens, [...gemini.sessionFlags, '--prompt'])
    return [program, ...head, ...kept, '--resume', sessionId, `--prompt=${prompt}`]
  },
  interactive: 'gemini --resume <session id>',
  interactiveArgv: ({program, head, tokens, sessionId}) => [
    program,
    ...head,
    ...carriedTokens(tokens, ['--model', '--approval-mode', '--yolo', '--sandbox', '--include-directories', '--extensions', '--allowed-tools', '--allowed-mcp-server-names']),
    '--resume',
    sessionId,
  ],
  fold,
  runEnding: (lastEvent) => lastEvent !== null && lastEvent.startsWith('result'),
  reportedSuccess: (info) => info.lastEvent === 'result/success' && !info.error,
  exitZeroWithoutResult: 'interrupted',
  usageLimit,
  reports: {turns: true, tokens: true, cost: false},
  drain: 'safe-point',
  leftovers: 'it relaunches itself (a parent that ignores SIGTERM and forwards nothing, GEMINI_CLI_NO_RELAUNCH=true avoids it) and its shell tool starts commands in a session of their own: drover signals the whole group and finds the escapees by its task mark',
  transcript,
}

