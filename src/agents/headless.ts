// An agent's headless command written for a prompt: `start --agent NAME
// --prompt P` runs exactly what a person who knew the agent's grammar would
// have typed, so resume, drain, budgets and usage see an ordinary command.
// The grammar is each agent's own (profile.start); this module adds what was
// chosen for it — config.json's `agents.NAME` and the caller's extra flags —
// in one order: the documented form, the permission mode, the model, the
// config's flags, the extra flags last (an agent that takes the last of a
// repeated flag lets the caller's win).

import {usageError} from '../base/errors.js'
import {argvTooLong} from '../platform/platform.js'
import {suggest} from '../base/suggest.js'
import type {AgentDefaults} from '../state/config.js'
import type {BuiltFrom} from '../state/record.js'
import {givesFlag} from './argv.js'
import type {AgentName, AgentProfile} from './profile.js'
export type {BuiltFrom} from '../state/record.js'
import {GENERIC_AGENT, knownAgentNames, profileOf} from './registry.js'

export interface HeadlessRequest {
  agent: AgentName
  prompt: string
  /** the agent's own flags, given by the caller: added last, as given. */
  extraArgs?: string[]
}

/** A written command, with what was decided for it (the record keeps that part as `built`). */
export interface BuiltCommand extends BuiltFrom {
  agent: AgentName
  /** the argv to run: the program by its name (found on PATH at start), then the agent's arguments. */
  command: string[]
}

/** The profile of an agent drover can write a command for, or a usage error naming the ones it can. */
export function headlessProfile(agent: string): AgentProfile {
  const profile = profileOf(agent)
  if (profile) return profile
  const known = knownAgentNames()
  if (agent === GENERIC_AGENT) throw usageError(`agent ${GENERIC_AGENT} has no headless command drover can write: give the command after -- instead, or one of ${known.join(', ')}`)
  const near = suggest(agent, known)
  throw usageError(`agent '${agent}' is not one drover knows${near ? ` (did you mean ${near}?)` : ''}: ${known.join(', ')}`)
}

/**
 * config.json's `agents` checked against the agents drover knows: a name it
 * does not know, or a permission mode the agent has not, is refused whole
 * (a misspelt one silently ignored would run agents with the wrong rights).
 */
export function checkAgentDefaults(agents: Record<string, AgentDefaults> | undefined, source: string): void {
  for (const [name, defaults] of Object.entries(agents ?? {})) {
    const profile = profileOf(name)
    if (!profile) {
      const known = knownAgentNames()
      const near = suggest(name, known)
      const what = name === GENERIC_AGENT ? `${GENERIC_AGENT} has no command drover writes` : `no agent of that name${near ? ` (did you mean ${near}?)` : ''}`
      throw usageError(`${source}: agents.${name}: ${what}; known: ${known.join(', ')}`)
    }
    const mode = defaults.permissionMode
    if (mode !== undefined && !Object.hasOwn(profile.start.permissionModes, mode)) {
      throw usageError(`${source}: agents.${name}.permissionMode '${mode}' is not one of ${name}'s: ${Object.keys(profile.start.permissionModes).join(', ')}`)
    }
  }
}

/**
 * The agent's headless command for `prompt`: its print mode, its JSON events,
 * a permission mode where configured (or where its headless mode needs one),
 * the configured model and flags, then the extra flags. A usage error for an
 * agent without a profile, an empty prompt, or extra arguments that are not
 * flags (a command after `--` where the agent's flags were meant).
 */
export function buildHeadless(request: HeadlessRequest, defaults: AgentDefaults = {}): BuiltCommand {
  const profile = headlessProfile(request.agent)
  const {prompt} = request
  if (typeof prompt !== 'string' || prompt.trim() === '') throw usageError('the prompt is empty: say what the agent is to do')
  const extraArgs = request.extraArgs ?? []
  if (extraArgs.length > 0 && !extraArgs[0].startsWith('-')) {
    throw usageError(
      `with a prompt drover writes the ${profile.name} command itself: after -- give only ${profile.name}'s own flags (e.g. -- --model NAME), not '${extraArgs[0]}'`,
    )
  }
  const grammar = profile.start
  const configFlags = defaults.flags ?? []
  const given = [...configFlags, ...extraArgs]
  const model = defaults.model !== undefined && !givesFlag(given, grammar.modelFlags) ? defaults.model : null
  const mode = defaults.permissionMode ?? grammar.defaultPermissionMode
  const permissionMode = mode !== null && !givesFlag(given, grammar.permissionFlags) ? mode : null
  const permission = permissionMode === null ? [] : grammar.permissionModes[permissionMode]
  if (permission === undefined) throw usageError(`${profile.name} has no permission mode '${permissionMode}': ${Object.keys(grammar.permissionModes).join(', ')}`)
  const after = [...permission, ...(model === null ? [] : [grammar.modelFlags[0], model]), ...given]
  const command = [profile.binaries[0], ...grammar.argv(prompt, after)]
  const tooLong = argvTooLong(command)
  if (tooLong !== null) {
    throw usageError(`the prompt is too long to give ${profile.name} as an argument (${tooLong}): put the detail in a file in the task's directory and ask the agent to read it`)
  }
  return {
    agent: profile.name,
    command,
    prompt,
    model,
    permissionMode,
    configFlags: [...configFlags],
    extraArgs: [...extraArgs],
  }
}

/** One agent's headless form for help and docs: its command for a prompt `P`, and the permission modes config.json may give it. */
export interface HeadlessForm {
  agent: AgentName
  /** e.g. `claude -p P --output-format stream-json --verbose`. */
  command: string
  permissionModes: string[]
  defaultPermissionMode: string | null
}

/** Every agent's headless form, in the registry's order: what help and the MCP schema say, written by the same code that writes the commands. */
export function headlessForms(): HeadlessForm[] {
  const prompt = 'the prompt'
  return knownAgentNames().map((agent) => {
    const {command} = buildHeadless({agent, prompt})
    const grammar = headlessProfile(agent).start
    return {
      agent,
      command: command.map((t) => (t === prompt ? 'P' : t)).join(' '),
      permissionModes: Object.keys(grammar.permissionModes),
      defaultPermissionMode: grammar.defaultPermissionMode,
    }
  })
}
