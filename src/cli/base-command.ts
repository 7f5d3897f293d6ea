// What every drover command shares: --json, --state-dir and --no-color, the
// resolved state dir, and one error policy — a one-line message on stderr (or
// a JSON object on stdout under --json) with the documented exit code.

import {Command} from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'
import type * as Interfaces from '@oclif/core/interfaces'
import {describeFsError, DroverError, ExitCode} from '../api/values.js'
import {openStateDir, type Drover} from '../api/drover.js'
import {colorEnabled} from './render/color.js'
import {droverWords} from './oclif-errors.js'
import {suggest} from '../api/suggest.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true

  /**
   * Flags people reach for on this command that belong to another one
   * (`list --follow`): the typed flag → where to go instead, said in place of
   * a did-you-mean that would only guess at a spelling.
   */
  static flagHints: Readonly<Record<string, string>> = {}

  static override baseFlags = {
    'state-dir': Flags.string({
      description: 'state directory to use (default: $DROVER_STATE_DIR, else the per-OS data directory)',
      helpGroup: 'GLOBAL',
    }),
    color: Flags.boolean({
      description: 'colour output, or not with --no-color; either wins over NO_COLOR (default: only on a terminal, never with NO_COLOR)',
      allowNo: true,
      helpGroup: 'GLOBAL',
    }),
  }

  /**
   * oclif fills a missing positional argument from piped stdin — so in
   * `… | while read f; do drover start -- echo "$f"; done` start would eat the
   * loop's input, and `echo s1 | drover cancel` would cancel s1. No drover
   * command reads stdin unless a flag asks for it: every argument is marked
   * ignoreStdin here, once, for every command.
   */
  protected override async parse<F extends Interfaces.OutputFlags<any>, B extends Interfaces.OutputFlags<any>, A extends Interfaces.OutputArgs<any>>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const ctor = (options ?? this.ctor) as Interfaces.Input<F, B, A> & {baseFlags?: unknown; enableJsonFlag?: boolean}
    const args = Object.fromEntries(Object.entries(ctor.args ?? {}).map(([name, arg]) => [name, {...arg, ignoreStdin: true}]))
    // oclif reads these statics off the class; a plain object must carry the inherited ones itself.
    const input = {...ctor, strict: ctor.strict, flags: ctor.flags, baseFlags: ctor.baseFlags, enableJsonFlag: ctor.enableJsonFlag, args}
    return super.parse(input as Interfaces.Input<F, B, A>, argv)
  }

  /**
   * Resolves and checks the state dir (--state-dir, else the environment,
   * else the per-OS default) and opens it. Only a command that writes a task
   * or a setting (`create`) makes one that does not exist; any other reads
   * it as empty and leaves nothing behind.
   */
  protected drover(flag: string | undefined, opts: {create?: boolean} = {}): Promise<Drover> {
    return openStateDir(flag, opts.create ? {} : {look: true})
  }

  protected color(flag: boolean | undefined, stream: NodeJS.WriteStream = process.stdout): boolean {
    return colorEnabled(stream, flag)
  }

  /** Diagnostics always go to stderr, so stdout stays clean for pipes and --json. */
  protected note(message: string): void {
    process.stderr.write(`${message}\n`)
  }

  /**
   * Plain JSON, never colourised: oclif's colorizeJson tokenises the output
   * with regexes, which costs ~100 ms for `list --json` at 1,000 tasks.
   * Indented for a person at a terminal, compact for the scripts that read a
   * pipe (the same data either way; a quarter of the bytes at 10,000 tasks).
   */
  override logJson(json: unknown): void {
    process.stdout.write(JSON.stringify(json, null, process.stdout.isTTY ? 2 : undefined) + '\n')
  }

  protected override async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<void> {
    const {message, exitCode, data} = describe(error, {flags: this.flagNames(), hints: (this.ctor as typeof BaseCommand).flagHints ?? {}, argv: this.argv}, this.id?.replaceAll(':', ' ') ?? 'COMMAND')
    process.exitCode = exitCode
    if (this.jsonEnabled()) {
      process.stdout.write(JSON.stringify({error: {message, exitCode}, ...data}) + '\n')
    } else {
      process.stderr.write(`drover: ${message}\n`)
    }
    if (process.env.DEBUG && !(error instanceof DroverError)) process.stderr.write(`${error.stack}\n`)
  }

  /** Every flag this command takes, as typed: '--status', '-q', '--no-wait'. */
  private flagNames(): string[] {
    const ctor = this.ctor as typeof BaseCommand
    const names: string[] = ['--json']
    for (const [name, flag] of Object.entries({...ctor.baseFlags, ...ctor.flags})) {
      names.push(`--${name}`)
      if (flag.char) names.push(`-${flag.char}`)
      if ((flag as {allowNo?: boolean}).allowNo) names.push(`--no-${name}`)
    }
    return names
  }
}

/**
 * A flag as the user typed it: oclif names a flag by its long name in every
 * message (`--tail needs a value`) even when `-n` was typed. The short form is
 * named when it, and not the long one, is on the command line.
 */
function asTyped(known: FlagContext): (flag: string) => string {
  const ctorFlags = new Map<string, string>() // --long → -c
  for (let i = 0; i < known.flags.length - 1; i++) {
    if (known.flags[i].startsWith('--') && /^-\w$/.test(known.flags[i + 1])) ctorFlags.set(known.flags[i], known.flags[i + 1])
  }
  const dash = known.argv.indexOf('--')
  const words = dash === -1 ? known.argv : known.argv.slice(0, dash)
  const typed = (form: string) => words.some((w) => w === form || w.startsWith(`${form}=`) || (form.length === 2 && w.startsWith(form)))
  return (flag) => {
    const short = ctorFlags.get(flag)
    return short !== undefined && !typed(flag) && typed(short) ? short : flag
  }
}

const STATE_DIR_ERRNOS = new Set(['EROFS', 'ENOSPC', 'EDQUOT', 'EACCES', 'EPERM'])

/**
 * oclif's parse errors span lines ("Parsing --keep\n\tExpected an integer … -1\nSee more
 * help"): the first alone says nothing, so the detail lines are joined onto it.
 */
function oneLine(message: string): string {
  const parts = message
    .split('\n')
    .map((line) => line.trim().replace(/\s{2,}/g, ': '))
    .filter((line) => line !== '' && !/^See more help/.test(line))
  return parts.reduce((text, part) => (text === '' ? part : text.endsWith(':') ? `${text} ${part}` : `${text}: ${part}`), '')
}

/** oclif's "Nonexistent flag: --staus" with the flag the user most likely meant. */
function unknownFlagMessage(typed: string[], known: string[], hints: Readonly<Record<string, string>>): string {
  const name0 = typed.length === 1 ? typed[0].split('=')[0] : null
  if (name0 !== null && hints[name0]) return `unknown flag: ${name0}: ${hints[name0]}`
  const parts = typed.map((flag) => {
    const name = flag.split('=')[0]
    // A one-letter flag is one edit from every other: only long ones get a guess.
    const close = name.startsWith('--') ? suggest(name, known.filter((k) => k.startsWith('--'))) : null
    return close ? `${name} (did you mean ${close}?)` : name
  })
  return `unknown flag${parts.length === 1 ? '' : 's'}: ${parts.join(', ')}`
}

/** What the command knows of its own flags and of what was typed, for its parse errors. */
interface FlagContext {
  /** every flag as typed: '--status', '-q'. */
  flags: string[]
  hints: Readonly<Record<string, string>>
  /** the words after the command, as typed. */
  argv: readonly string[]
}

function describe(error: Error & {exitCode?: number; oclif?: {exit?: number}; flags?: string[]}, known: FlagContext, command: string): {
  message: string
  exitCode: number
  data: Record<string, unknown>
} {
  if (error instanceof DroverError) return {message: error.message, exitCode: error.exitCode, data: error.data ?? {}}
  // A file-system error that escaped a command is about the state dir (the only
  // place drover writes): read-only, full or forbidden makes it unusable, exit 5.
  const errno = (error as NodeJS.ErrnoException).code
  if (errno !== undefined && STATE_DIR_ERRNOS.has(errno)) {
    const where = (error as NodeJS.ErrnoException).path
    return {message: `state dir unusable: ${describeFsError(error)}${where ? ` (${where})` : ''}`, exitCode: ExitCode.stateDir, data: {}}
  }
  // oclif's own errors: flag and argument parsing failures are usage errors.
  if (error.constructor.name === 'NonExistentFlagsError' && Array.isArray(error.flags)) {
    return {message: unknownFlagMessage(error.flags, known.flags, known.hints), exitCode: ExitCode.usage, data: {}}
  }
  const oclifExit = error.oclif?.exit
  const firstLine = (error.message ?? String(error)).split('\n')[0].replace(/\s+$/, '')
  if (oclifExit === 2 || /flag|argument|expected|missing/i.test(error.name + firstLine)) {
    return {message: droverWords(error.message ?? firstLine, command, asTyped(known)) ?? oneLine(error.message ?? firstLine), exitCode: ExitCode.usage, data: {}}
  }
  return {message: `${firstLine} (set DEBUG=1 for details)`, exitCode: oclifExit ?? ExitCode.failed, data: {}}
}
