// The environment a real agent needs to talk only to our fake servers: a fresh
// HOME per test, claude's switches off for everything but the model API, and
// codex's config.toml with every feature that reaches outside turned off.
// drover hands its own environment to the worker, so the env returned here is
// what a test passes to `drover start`.

import {cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {agentBinDir, agentsDir, opencodePluginDir} from './agents.js'
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
export function agentEnv(
  opts: {anthropic?: FakeModelServer; openai?: FakeModelServer; home?: string; extra?: Record<string, string>; setup?: (home: string) => Record<string, string>} = {},
): Record<string, string> & {HOME: string} {
  const home = opts.home ?? agentTempDir('drover-home-')
  return {
    PATH: `${agentBinDir()}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    ...(opts.anthropic ? claudeEnv(opts.anthropic) : {}),
    ...(opts.openai ? codexEnv(home, opts.openai) : {}),
    ...(opts.setup ? opts.setup(home) : {}),
    ...opts.extra,
  }
}

/**
 * gemini: `selectedType` is required (else exit 41); auto-update, usage
 * statistics and telemetry off; one attempt per request, so a 429 is reported
 * at once instead of retried for minutes; trust without asking.
 */
export function geminiEnv(home: string, server: FakeModelServer): Record<string, string> {
  mkdirSync(path.join(home, '.gemini'), {recursive: true})
  const settings = {
    general: {enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1},
    privacy: {usageStatisticsEnabled: false},
    telemetry: {enabled: false},
    security: {auth: {selectedType: 'gemini-api-key'}, folderTrust: {enabled: false}},
  }
  writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2))
  return {GEMINI_API_KEY: 'fake-gemini-key-for-tests', GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_CLI_TRUST_WORKSPACE: 'true'}
}

/** qwen: the OpenAI-compatible provider, auto-update, statistics, telemetry and its background memory jobs off, no retries. */
export function qwenEnv(home: string, server: FakeModelServer): Record<string, string> {
  mkdirSync(path.join(home, '.qwen'), {recursive: true})
  const settings = {
    security: {auth: {selectedType: 'openai'}},
    general: {enableAutoUpdate: false},
    privacy: {usageStatisticsEnabled: false},
    telemetry: {enabled: false},
    memory: {enableManagedAutoMemory: false, enableManagedAutoDream: false, enableAutoSkill: false},
    model: {generationConfig: {maxRetries: 0}},
    $version: 4,
  }
  writeFileSync(path.join(home, '.qwen', 'settings.json'), JSON.stringify(settings, null, 2))
  return {OPENAI_API_KEY: 'sk-fake-key-for-tests', OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_MODEL: 'fake-model'}
}

/**
 * copilot: offline, a bring-your-own-key OpenAI provider, no updates. Its
 * native program (235 MB) unpacks under $XDG_CACHE_HOME/copilot once per
 * cache: one shared cache next to the installed agents. (The key must not be
 * a short word: copilot masks the key's text wherever it prints it.)
 */
export function copilotEnv(server: FakeModelServer): Record<string, string> {
  return {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_API_KEY: 'sk-fake-key-for-tests',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_AUTO_UPDATE: 'false',
    XDG_CACHE_HOME: path.join(agentsDir(), 'xdg-cache'),
  }
}

/**
 * opencode: a custom OpenAI-compatible provider as its model (and small model,
 * for titles); models fetch, auto-update, sharing, LSP downloads and default
 * plugins off. Its plugin package is copied in from the agents cache (it
 * would npm-install it at every start).
 */
export function opencodeEnv(home: string, server: FakeModelServer): Record<string, string> {
  const dir = path.join(home, '.config', 'opencode')
  mkdirSync(dir, {recursive: true})
  const config = {
    $schema: 'https://opencode.ai/config.json',
    provider: {fake: {npm: '@ai-sdk/openai-compatible', name: 'fake', options: {baseURL: `${server.url}/v1`, apiKey: 'sk-fake-key-for-tests'}, models: {'fake-model': {name: 'fake-model'}}}},
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
  }
  writeFileSync(path.join(dir, 'opencode.json'), JSON.stringify(config, null, 2))
  const plugin = opencodePluginDir()
  if (plugin) cpSync(plugin, dir, {recursive: true})
  return {
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  }
}
