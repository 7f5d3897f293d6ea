// The environment a real agent needs to talk only to our fake servers: a fresh
// HOME per test, claude's switches off for everything but the model API, and
// codex's config.toml with every feature that reaches outside turned off.
// drover hands its own environment to the worker, so the env returned here is
// what a test passes to `drover start`.

import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {agentBinDir} from './agents.js'
import type {FakeModelServer} from './fake-server.js'

const made: string[] = []

/** A fresh temp dir (a HOME, a work dir), removed by `cleanupAgentDirs`. */
export function agentTempDir(prefix = 'drover-agent-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}

export function cleanupAgentDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, {recursive: true, force: true, maxRetries: 5, retryDelay: 100})
}

export const CODEX_MODEL = 'gpt-5.5'

/** claude's environment as measured: every one of these keeps it off the network but for the model API. */
export function claudeEnv(server: FakeModelServer): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
  }
}

/**
 * codex reads its provider from $HOME/.codex/config.toml. Every [features] and
 * [analytics] line is needed: without them codex looks up outside hosts and
 * tries to clone a plugin repository at start.
 */
export function writeCodexConfig(home: string, server: FakeModelServer): string {
  const dir = path.join(home, '.codex')
  mkdirSync(dir, {recursive: true})
  const file = path.join(dir, 'config.toml')
  writeFileSync(
    file,
    `model = "${CODEX_MODEL}"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "${server.url}/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
plugin_sharing = false
in_app_updates = false
tool_suggest = false
`,
  )
  return file
}

export function codexEnv(home: string, server: FakeModelServer): Record<string, string> {
  writeCodexConfig(home, server)
  return {OPENAI_API_KEY: 'sk-fake-key-for-tests'}
}

/**
 * Everything `drover start` (and so the agent) gets: the real agents first on
 * PATH, a fresh HOME, and the settings for whichever fake servers are given.
 */
export function agentEnv(opts: {anthropic?: FakeModelServer; openai?: FakeModelServer; home?: string; extra?: Record<string, string>} = {}): Record<string, string> & {HOME: string} {
  const home = opts.home ?? agentTempDir('drover-home-')
  return {
    PATH: `${agentBinDir()}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    ...(opts.anthropic ? claudeEnv(opts.anthropic) : {}),
    ...(opts.openai ? codexEnv(home, opts.openai) : {}),
    ...opts.extra,
  }
}
