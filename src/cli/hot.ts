// The commands scripts call in loops, run without oclif's Config.load. A run
// of one of them through oclif reads and checks drover's package.json twice
// (execute, then the command's own run), asks whether this is WSL, reads the
// manifest and looks for user plugins — and loads the modules that do all
// that. None of it changes what the command does: drover's commands take no
// plugins and no hooks but command_not_found (never reached by a command that
// exists). Here the command's class runs as oclif's runCommand runs it
// (`_run`: init, parse with oclif's own parser, run, catch), handed a Config
// with what a command reads of one: bin, version, user agent, the scoped
// environment, the topic separator, no hooks. Help, a parse error, a plugin
// and everything else stay oclif's: bin/run.js hands those to oclif, and so
// does runHot() (null) when the user's data dir holds a package.json (oclif
// would load user plugins from it).

import {Config} from '@oclif/core/config'
import {handle} from '@oclif/core/errors'
import {flush} from '@oclif/core/flush'
import {normalizeArgv} from '@oclif/core/help'
import {existsSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type {Command} from '@oclif/core/command'

export interface Package {
  root: string
  pjson: {name: string; version: string; oclif: {bin?: string; dirname?: string; topicSeparator?: string; [key: string]: unknown}; [key: string]: unknown}
}

type CommandClass = (new (argv: string[], config: Config) => Command) & {id?: string; strict?: boolean; args?: object}

/**
 * A Config as Config.load leaves it, for what a command reads: made with
 * oclif's own class, so its methods (scopedEnvVar, runHook, dir) are oclif's.
 */
function liteConfig(pkg: Package, id: string, command: CommandClass): Config {
  const {pjson, root} = pkg
  const config = new Config({root, pjson: pjson as never})
  // oclif's own ways to the home and data dirs (protected in its types)
  const own = config as unknown as {windowsHome(): string | undefined; dir(category: string): string}
  const rootPlugin = {name: pjson.name, root, pjson, hooks: {}, commands: [], commandIDs: [id], topics: [], isRoot: true, type: 'core', valid: true}
  const arch = os.arch() === 'ia32' ? 'x86' : os.arch()
  const windows = process.platform === 'win32'
  Object.assign(config, {
    pjson,
    root,
    name: pjson.name,
    version: pjson.version,
    bin: pjson.oclif.bin ?? pjson.name,
    binAliases: pjson.oclif.binAliases,
    dirname: pjson.oclif.dirname ?? pjson.name,
    topicSeparator: pjson.oclif.topicSeparator ?? ':',
    flexibleTaxonomy: false,
    isSingleCommandCLI: false,
    arch,
    platform: process.platform,
    windows,
    userAgent: `${pjson.name}/${pjson.version} ${process.platform}-${arch} node-${process.version}`,
    home: process.env.HOME || (windows && own.windowsHome()) || os.homedir() || os.tmpdir(),
    rootPlugin,
    plugins: new Map([[pjson.name, rootPlugin]]),
    valid: true,
  })
  // What oclif's normalizeArgv asks of a config (the deprecation check of every command's init).
  Object.defineProperty(config, 'commandIDs', {value: [id]})
  config.findCommand = ((wanted: string) => (wanted === id ? {id, strict: command.strict, args: command.args ?? {}} : undefined)) as never
  config.dataDir = config.scopedEnvVar('DATA_DIR') || own.dir('data')
  return config
}

/**
 * Runs `id` (one of argv.ts's HOT_COMMANDS) with `argv` (the words after it) as oclif
 * would, and returns what its run returned; null when oclif must run it (the
 * user's data dir has a package.json, from which oclif loads user plugins; or
 * oclif would take a word after the command for part of its name).
 * `command` is the command's class, as the manifest names it.
 */
export async function runHot(pkg: Package, id: string, argv: string[], command: CommandClass): Promise<{result: unknown} | null> {
  const config = liteConfig(pkg, id, command)
  if (existsSync(path.join(config.dataDir, 'package.json'))) return null
  // oclif reads `list stray` as a command `list stray`, which is not found (drover's command_not_found hook says why)
  if (normalizeArgv(config, [id, ...argv])[0] !== id) return null
  // as oclif's plugin sets it on the class it loads for an id
  command.id = id
  try {
    const cmd = new command(argv, config)
    const result = await (cmd as unknown as {_run(): Promise<unknown>})._run()
    // not awaited, as execute() calls it
    void flush()
    return {result}
  } catch (error) {
    // what execute() does with an error that leaves a command (drover's own catch leaves none)
    await handle(error as Error)
    return {result: undefined}
  }
}
