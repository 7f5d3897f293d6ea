// Looking at one installed agent for `drover doctor`: where PATH finds it, the
// version it reports, whether its `--help` gives a flag grammar drover can
// read (what resume needs), and whether its session store is where drover
// expects. Only `--version` and `--help` are run — neither starts a session or
// contacts a model — each with the agent's quiet environment, stdin closed, a
// timeout, and its whole process group killed if it runs over.

import {existsSync, realpathSync} from 'node:fs'
import {currentPlatform, resolveExecutable, type PlatformContext} from '../platform/platform.js'
import {pathExtValue, pathValue, runBriefly, type BriefRun} from '../platform/inspect.js'
import {helpSpecs, MIN_FLAGS} from './flags-cache.js'
import type {KnownAgent} from './known.js'

export interface AgentFlagsCheck {
  /** drover read at least a few options from the help text: resume can keep every flag. */
  readable: boolean
  /** how many options it read. */
  count: number
  tookMs: number
  error: string | null
}

export interface SessionStoreCheck {
  path: string
  /** it exists (an agent never run with this HOME has none yet). */
  present: boolean
}

export interface AgentCheck {
  name: string
  found: boolean
  /** the absolute path PATH finds, or null. */
  path: string | null
  /** the same with symlinks resolved (npm's bin link points into its package). */
  realPath: string | null
  /** e.g. "2.1.332", or the first line printed when it holds no version number. */
  version: string | null
  versionTookMs: number | null
  versionError: string | null
  /** null when the agent was not found. */
  flags: AgentFlagsCheck | null
  sessionStore: SessionStoreCheck
}

export interface ProbeOptions {
  env: NodeJS.ProcessEnv
  cwd: string
  timeoutMs: number
  ctx?: PlatformContext
}

/**
 * Set for every `--version` and `--help` call: the switches the agents read
 * to skip update checks, telemetry and error reports (claude, copilot,
 * opencode), and gemini's relaunch of itself. Those two calls answer before
 * any of that starts in the versions tested; these keep it so in others.
 */
export const OFFLINE_ENV: Readonly<Record<string, string>> = {
  DISABLE_AUTOUPDATER: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  COPILOT_AUTO_UPDATE: 'false',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  GEMINI_CLI_NO_RELAUNCH: 'true',
  NO_UPDATE_NOTIFIER: '1',
}

const firstLine = (text: string) => text.split(/\r?\n/).map((line) => line.trim()).find((line) => line !== '') ?? ''

/** The version number a `--version` line holds ("2.1.332 (Claude Code)", "codex-cli 0.171.0"), else the line itself. */
export function versionFrom(output: string): string | null {
  const line = firstLine(output)
  if (line === '') return null
  return /\d+\.\d+(?:\.\d+)?(?:[-+][\w.-]+)?/.exec(line)?.[0] ?? line.slice(0, 200)
}

function failure(what: string, r: BriefRun, timeoutMs: number): string {
  if (r.timedOut) return `\`${what}\` did not answer within ${timeoutMs} ms`
  if (r.error !== null) return `\`${what}\` could not run: ${r.error}`
  return `\`${what}\` exited ${r.code}${firstLine(r.stderr) ? `: ${firstLine(r.stderr).slice(0, 200)}` : ''}`
}

function sessionStore(agent: KnownAgent, env: NodeJS.ProcessEnv): SessionStoreCheck {
  const store = agent.sessionStore(env)
  return {path: store, present: existsSync(store)}
}

export async function probeAgent(agent: KnownAgent, opts: ProbeOptions): Promise<AgentCheck> {
  const ctx = opts.ctx ?? currentPlatform()
  const store = sessionStore(agent, opts.env)
  let found: string | null = null
  for (const name of agent.binaries) {
    found = resolveExecutable(name, {pathEnv: pathValue(opts.env, ctx), cwd: opts.cwd, pathExt: pathExtValue(opts.env, ctx)}, ctx)
    if (found) break
  }
  const missing: AgentCheck = {name: agent.name, found: false, path: null, realPath: null, version: null, versionTookMs: null, versionError: null, flags: null, sessionStore: store}
  if (found === null) return missing
  let realPath: string | null = null
  try {
    realPath = realpathSync(found)
  } catch {
    // a link that broke since PATH was searched: the calls below say so
  }
  const program = agent.binaries[0]
  const [version, help] = await Promise.all([
    runBriefly(found, agent.versionArgs, {...opts, env: {...opts.env, ...OFFLINE_ENV}}),
    runBriefly(found, agent.helpArgs, {...opts, env: {...opts.env, ...OFFLINE_ENV}}),
  ])
  const versionOk = version.code === 0 && !version.timedOut
  const specs = help.code === 0 && !help.timedOut ? helpSpecs(help.stdout, help.stderr, agent.helpGrammar) : []
  const readable = specs.length >= MIN_FLAGS
  const helpWhat = `${program} ${agent.helpArgs.join(' ')}`
  return {
    name: agent.name,
    found: true,
    path: found,
    realPath,
    version: versionOk ? versionFrom(version.stdout || version.stderr) : null,
    versionTookMs: version.tookMs,
    versionError: versionOk ? null : failure(`${program} ${agent.versionArgs.join(' ')}`, version, opts.timeoutMs),
    flags: {
      readable,
      count: specs.length,
      tookMs: help.tookMs,
      error: readable ? null : help.code === 0 && !help.timedOut ? `\`${helpWhat}\` printed no options drover could read` : failure(helpWhat, help, opts.timeoutMs),
    },
    sessionStore: store,
  }
}
