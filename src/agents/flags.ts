// An agent's command-line grammar: which flags take a value, an optional
// value or many, read from the agent's own `--help` text, and argv classified
// by it. A resume must keep every token of the original command except the
// prompt; telling a flag's value from the prompt needs the installed version's
// grammar. A hand-kept list goes stale with every release (claude adds value
// flags often, several variadic); the help text does not. Pure functions; the
// learning and caching is agent-flags-cache.ts.

/** switch: no value; value: exactly one; optional: one unless the next token is a flag; variadic: every token up to the next flag. */
export type FlagArity = 'switch' | 'value' | 'optional' | 'variadic'

export interface FlagSpec {
  /** every spelling, e.g. ['-p', '--print'] or ['--allowedTools', '--allowed-tools']. */
  names: string[]
  arity: FlagArity
}

// A help line that introduces an option: a few spaces of indent, one or more
// comma-separated names, then optionally its value placeholder, then two
// spaces and the description or the end of the line. Both commander (claude:
// `--add-dir <directories...>`, `-r, --resume [value]`) and clap (codex:
// `-c, --config <key=value>`, `-i, --image <FILE>...`, `--x [<V>]`) print this shape.
const OPTION_LINE = /^ {1,8}(-{1,2}[A-Za-z0-9][\w-]*(?:, *-{1,2}[A-Za-z0-9][\w-]*)*)(?:[ =]((?:<[^>]*>|\[[^\]]*\])(?:\.\.\.)?))?(?: {2,}|\s*$)/

/**
 * How a help text's `[array]` option (yargs: gemini, qwen) takes its values:
 * gemini's take one each (the flag is repeated), qwen's several.
 */
export interface HelpGrammar {
  array: 'value' | 'variadic'
}

// yargs prints no placeholder but the option's type at the end of its
// description (`-m, --model  Model  [string]`), possibly on a wrapped line.
const YARGS_TYPE = /\[(string|number|array|count|boolean)\]/

export function parseHelpFlags(help: string, grammar: HelpGrammar = {array: 'variadic'}): FlagSpec[] {
  const flags: FlagSpec[] = []
  let open: {spec: FlagSpec; typed: boolean} | null = null
  const typeFrom = (text: string) => {
    if (!open || open.typed) return
    const type = YARGS_TYPE.exec(text)?.[1]
    if (!type) return
    open.typed = true
    if (type === 'string' || type === 'number') open.spec.arity = 'value'
    if (type === 'array') open.spec.arity = grammar.array
  }
  for (const line of help.split(/\r?\n/)) {
    const match = OPTION_LINE.exec(line)
    if (!match) {
      // a description's continuation: the type may be at its end; a blank or unindented line ends it
      if (/^\s{8,}\S/.test(line)) typeFrom(line)
      else open = null
      continue
    }
    const names = match[1].split(',').map((name) => name.trim())
    const placeholder = match[2] ?? ''
    let arity: FlagArity = 'switch'
    if (placeholder.includes('...')) arity = 'variadic'
    else if (placeholder.startsWith('<')) arity = 'value'
    else if (placeholder.startsWith('[')) arity = 'optional'
    const spec = {names, arity}
    flags.push(spec)
    open = placeholder ? null : {spec, typed: false}
    typeFrom(line.slice(match[0].length))
  }
  return flags
}

export class FlagTable {
  private readonly byName = new Map<string, FlagSpec>()

  constructor(readonly specs: FlagSpec[]) {
    for (const spec of specs) for (const name of spec.names) this.byName.set(name, spec)
  }

  get(name: string): FlagSpec | undefined {
    return this.byName.get(name)
  }

  /** The flag's long name (`--resume` for `-r`), or the name itself. */
  canonical(name: string): string {
    const spec = this.byName.get(name)
    return spec?.names.find((n) => n.startsWith('--')) ?? name
  }
}

export type TokenRole = 'flag' | 'value' | 'positional' | 'separator'
export interface Token {
  text: string
  role: TokenRole
  /** for a flag and its values: the flag's long name. */
  flag?: string
}

const looksLikeFlag = (token: string) => token.length > 1 && token.startsWith('-') && !/^-\d/.test(token)

/**
 * Classifies argv the way the agent's own parser reads it: flags, their
 * values, positionals, and `--` (after which everything is positional). A flag
 * the table does not know is taken as a switch, which is what it is in every
 * version whose help we have read.
 */
export function classifyArgs(args: string[], table: FlagTable): Token[] {
  const tokens: Token[] = []
  let onlyPositionals = false
  for (let i = 0; i < args.length; i++) {
    const text = args[i]
    if (onlyPositionals || !looksLikeFlag(text)) {
      tokens.push({text, role: 'positional'})
      continue
    }
    if (text === '--') {
      onlyPositionals = true
      tokens.push({text, role: 'separator'})
      continue
    }
    const eq = text.indexOf('=')
    const name = eq === -1 ? text : text.slice(0, eq)
    // `-abc` clusters of short switches: only the last letter can take a value.
    const spec = table.get(name) ?? (/^-[A-Za-z]{2,}$/.test(name) ? table.get(`-${name.at(-1)}`) : undefined)
    const flag = table.canonical(name)
    tokens.push({text, role: 'flag', flag})
    if (!spec || eq !== -1 || spec.arity === 'switch') continue
    if (spec.arity === 'value') {
      if (i + 1 < args.length) tokens.push({text: args[++i], role: 'value', flag})
    } else if (spec.arity === 'optional') {
      if (i + 1 < args.length && !looksLikeFlag(args[i + 1])) tokens.push({text: args[++i], role: 'value', flag})
    } else {
      while (i + 1 < args.length && !looksLikeFlag(args[i + 1])) tokens.push({text: args[++i], role: 'value', flag})
    }
  }
  return tokens
}
