// Parsing and formatting of the values users type on the command line: durations, sizes,
// task references and names, and -e KEY=VALUE. Node builtins only, because the detached
// runner imports this file. Every parser throws only usageError (exit 2), whatever the string.

import {usageError} from './errors.js'

type ZeroOpts = {allowZero?: boolean}
type DurationOpts = ZeroOpts & {bareSeconds?: boolean}

/** Most characters of a user's value echoed back in a message; a 1000-char paste stays readable. */
const ECHO_LIMIT = 40

/**
 * The user's value as it may appear in a one-line message: cut to 40 code points (never
 * splitting a surrogate pair) and with control, format (e.g. bidi overrides), line-separator
 * and lone-surrogate characters escaped, so an echoed value can neither break the line nor
 * rewrite the terminal.
 */
function show(value: string): string {
  const points = Array.from(value)
  const cut = points.length > ECHO_LIMIT ? points.slice(0, ECHO_LIMIT).join('') + '…' : value
  return cut.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (c) => {
    const code = c.codePointAt(0) ?? 0
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

const prefix = (flag: string | undefined) => (flag ? `${flag}: ` : '')

// A caller may hand us a value from JSON or argv that is not a string at runtime; that is
// still the user's input, so it must end as a usage error and not a TypeError.
const asString = (input: unknown): string | undefined => (typeof input === 'string' ? input : undefined)

// ---------------------------------------------------------------------------------------------
// Durations

const DURATION_UNITS = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000} as const
type DurationUnit = keyof typeof DURATION_UNITS
// Largest first: a compound like '1h30m' must list its units in this order, each at most once,
// so '30m1h' or '1h1h' (almost certainly typos) are refused instead of silently summed.
const DURATION_ORDER: readonly DurationUnit[] = ['w', 'd', 'h', 'm', 's', 'ms']

// Plain decimals only: no sign, no exponent, no leading or trailing dot, ASCII digits.
const NUMBER = String.raw`\d+(?:\.\d+)?`
const PLAIN_NUMBER = new RegExp(`^${NUMBER}$`)
// 'ms' before 'm' so '5ms' is not read as 5 minutes followed by garbage.
const DURATION_PART = new RegExp(`(${NUMBER})(ms|s|m|h|d|w)`, 'y')

/**
 * A duration: '90s', '30m', '2h', '1d', '1w', '500ms', compounds such as '1h30m' (largest unit
 * first, each unit once) and decimals such as '1.5h'. A bare number has no unit and is refused
 * with a hint — `prune --older-than 7` meant 7 days to the person who typed it, and removed
 * tasks 7 seconds old — except 0 (zero of any unit) and where `opts.bareSeconds` keeps an
 * established convention (`stop -t 10` is seconds, as in docker). Units are lower case only
 * ('M' would read as months to some). Surrounding whitespace is ignored. Returns whole
 * milliseconds (Math.round). Zero is refused unless `opts.allowZero`; negative, exponent,
 * non-finite and over-Number.MAX_SAFE_INTEGER values are always refused. `flag` (e.g.
 * '--timeout') starts every message.
 */
export function parseDuration(input: string, flag?: string, opts: DurationOpts = {}): number {
  const raw = asString(input)
  const p = prefix(flag)
  const invalid = () =>
    usageError(`${p}invalid duration '${show(raw ?? String(input))}' (use e.g. 90s, 30m, 2h, 1h30m)`)
  if (raw === undefined) throw invalid()
  const text = raw.trim()
  if (text === '') throw usageError(`${p}empty duration (use e.g. 90s, 30m, 2h, 1h30m)`)
  if (/^-\d/.test(text)) throw usageError(`${p}duration must not be negative, got '${show(raw)}'`)

  let total: number
  if (PLAIN_NUMBER.test(text)) {
    if (Number(text) !== 0 && !opts.bareSeconds) {
      throw usageError(`${p}'${show(raw)}' has no unit: say ${text}d, ${text}h, ${text}m or ${text}s`)
    }
    total = Number(text) * DURATION_UNITS.s
  } else {
    total = 0
    let pos = 0
    let nextRank = 0 // index into DURATION_ORDER of the largest unit still allowed
    while (pos < text.length) {
      DURATION_PART.lastIndex = pos
      const match = DURATION_PART.exec(text)
      if (!match) throw invalid()
      const unit = match[2] as DurationUnit
      const rank = DURATION_ORDER.indexOf(unit)
      if (rank < nextRank) {
        throw usageError(
          `${p}invalid duration '${show(raw)}' (in a compound, go from the largest unit to the smallest, each once, e.g. 1h30m)`,
        )
      }
      nextRank = rank + 1
      total += Number(match[1]) * DURATION_UNITS[unit]
      pos = DURATION_PART.lastIndex
    }
  }

  const ms = Math.round(total)
  // Number('9'.repeat(400)) is Infinity; anything past MAX_SAFE_INTEGER cannot be trusted to the ms.
  if (!Number.isFinite(total) || !Number.isSafeInteger(ms)) throw usageError(`${p}duration '${show(raw)}' is too large`)
  if (ms === 0 && !opts.allowZero) throw usageError(`${p}duration must be greater than zero, got '${show(raw)}'`)
  return ms
}

// ---------------------------------------------------------------------------------------------
// Sizes

const KIB = 1024
const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: KIB,
  kb: KIB,
  kib: KIB,
  m: KIB ** 2,
  mb: KIB ** 2,
  mib: KIB ** 2,
  g: KIB ** 3,
  gb: KIB ** 3,
  gib: KIB ** 3,
  t: KIB ** 4,
  tb: KIB ** 4,
  tib: KIB ** 4,
}
// One optional run of spaces between number and unit, so formatBytes output ('1.5 KiB') reads back.
const SIZE = new RegExp(`^(${NUMBER}) *([A-Za-z]*)$`)

/**
 * A byte size: '500MB', '1GiB', '10k', '1.5G', '1.5 KiB', '1024' (bytes). Units are case-insensitive:
 * b; k, kb, kib; m, mb, mib; g, gb, gib; t, tb, tib. Every multiple is binary (1 KB = 1 KiB = 1024
 * bytes), as pueue and docker users expect for memory and log limits. Surrounding whitespace is
 * ignored. Returns whole bytes (Math.round). Zero is refused unless `opts.allowZero`; negative,
 * exponent, non-finite and over-Number.MAX_SAFE_INTEGER values are always refused.
 */
export function parseSize(input: string, flag?: string, opts: ZeroOpts = {}): number {
  const raw = asString(input)
  const p = prefix(flag)
  const invalid = () =>
    usageError(`${p}invalid size '${show(raw ?? String(input))}' (use e.g. 500MB, 1GiB, 10k; units b, k, m, g, t)`)
  if (raw === undefined) throw invalid()
  const text = raw.trim()
  if (text === '') throw usageError(`${p}empty size (use e.g. 500MB, 1GiB, 10k)`)
  if (/^-\d/.test(text)) throw usageError(`${p}size must not be negative, got '${show(raw)}'`)
  const match = SIZE.exec(text)
  if (!match) throw invalid()
  const multiplier = SIZE_UNITS[(match[2] ?? '').toLowerCase()]
  if (multiplier === undefined) throw invalid()
  const total = Number(match[1]) * multiplier
  const bytes = Math.round(total)
  if (!Number.isFinite(total) || !Number.isSafeInteger(bytes)) throw usageError(`${p}size '${show(raw)}' is too large`)
  if (bytes === 0 && !opts.allowZero) throw usageError(`${p}size must be greater than zero, got '${show(raw)}'`)
  return bytes
}

// ---------------------------------------------------------------------------------------------
// A moment in the past (logs --since)

const CLOCK = /^(\d{1,2}):(\d\d)(?::(\d\d))?$/
const DATE_ONLY = /^(\d{4})-(\d\d)-(\d\d)$/
const DATE_TIME = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?$/

/**
 * `--since`: a duration back from now ('10m', '2h'), a clock time ('05:00', '17:30:15': the latest
 * such moment not in the future, so '23:00' just after midnight means yesterday evening), a date
 * ('2026-12-01': its local midnight) or a date and time ('2026-12-01 05:00', '2026-12-01T05:00Z';
 * local unless it names a zone). Returns epoch ms. A moment in the future is refused (exit 2).
 */
export function parseSince(input: string, flag = '--since', now = Date.now()): number {
  const raw = asString(input)
  const text = raw?.trim() ?? ''
  const invalid = () =>
    usageError(`${flag}: invalid time '${show(raw ?? String(input))}' (use a duration such as 10m, a time of day such as 05:00, or a date such as 2026-12-01 or 2026-12-01T05:00)`)
  const clock = CLOCK.exec(text)
  if (clock) {
    const [h, m, sec] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)]
    if (h > 23 || m > 59 || sec > 59) throw invalid()
    const at = new Date(now)
    at.setHours(h, m, sec, 0)
    if (at.getTime() > now) at.setDate(at.getDate() - 1)
    return at.getTime()
  }
  let ms: number
  const date = DATE_ONLY.exec(text)
  // Date.parse reads a bare date as UTC midnight; people mean their own.
  if (date) {
    const at = new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3]))
    // new Date rolls 2026-13-01 over into 2027: a date that does not exist is a typo
    if (at.getMonth() !== Number(date[2]) - 1 || at.getDate() !== Number(date[3])) throw invalid()
    ms = at.getTime()
  }
  else if (DATE_TIME.test(text)) ms = Date.parse(text.replace(' ', 'T'))
  else return now - parseDuration(text === '' ? (raw ?? '') : text, flag, {allowZero: true})
  if (Number.isNaN(ms)) throw invalid()
  if (ms > now) throw usageError(`${flag}: '${show(text)}' is in the future`)
  return ms
}

// ---------------------------------------------------------------------------------------------
// Counts (tokens)

const COUNT_UNITS: Record<string, number> = {'': 1, k: 1e3, m: 1e6, g: 1e9, b: 1e9}
const COUNT = new RegExp(`^(${NUMBER}) *([A-Za-z]?)$`)

/**
 * A count such as a token budget: '500k', '2M', '1.5m', '1g' or '1b' (billion), '40000'. The
 * suffixes are those of sizes, case-insensitive, but decimal (k = 1,000): token counts are
 * decimal wherever people meet them ("a 200k context", "$3 per 1M tokens"), so 2M must mean
 * 2,000,000 and not 2,097,152. Returns a whole number (Math.round); zero, negative and
 * non-finite values are refused (exit 2).
 */
export function parseCount(input: string, flag?: string): number {
  const raw = asString(input)
  const p = prefix(flag)
  const invalid = () => usageError(`${p}invalid count '${show(raw ?? String(input))}' (use e.g. 500k, 2M, 40000; k = 1,000, M = 1,000,000)`)
  if (raw === undefined) throw invalid()
  const text = raw.trim()
  if (text === '') throw usageError(`${p}empty count (use e.g. 500k, 2M, 40000)`)
  if (/^-\d/.test(text)) throw usageError(`${p}count must not be negative, got '${show(raw)}'`)
  const match = COUNT.exec(text)
  const multiplier = match ? COUNT_UNITS[match[2].toLowerCase()] : undefined
  if (!match || multiplier === undefined) throw invalid()
  const total = Math.round(Number(match[1]) * multiplier)
  if (!Number.isSafeInteger(total)) throw usageError(`${p}count '${show(raw)}' is too large`)
  if (total === 0) throw usageError(`${p}count must be greater than zero, got '${show(raw)}'`)
  return total
}

// ---------------------------------------------------------------------------------------------
// Task names and references

/** A task name's most characters. */
export const MAX_TASK_NAME_LENGTH = 64
const NAME_SHAPE = new RegExp(`^[A-Za-z][A-Za-z0-9._-]{0,${MAX_TASK_NAME_LENGTH - 1}}$`)
// Windows refuses these as file names with any extension ('con.log' included), in any case.
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i
const NAME_RULE = `1-${MAX_TASK_NAME_LENGTH} ASCII letters, digits, '.', '_' or '-', starting with a letter`

function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !NAME_SHAPE.test(name)) return `a name is ${NAME_RULE}`
  // Windows strips a trailing dot, so 'build.' and 'build' would be the same file.
  if (name.endsWith('.')) return 'a name must not end with a dot'
  if (WINDOWS_RESERVED.test(name.split('.')[0] ?? '')) return 'that name is reserved by Windows (con, nul, com1, ...)'
  return undefined
}

/**
 * Names: 1-64 chars, start with an ASCII letter, then ASCII letters, digits, '.', '_' or '-'; not
 * ending with '.', and not a Windows device name (con, nul, com1, ... with or without extension).
 * Safe as a file name on every OS and never confusable with an id or a path. Note that names
 * differing only in case collide on case-insensitive file systems; callers storing names as
 * files should compare them case-insensitively.
 */
export function isValidTaskName(name: string): boolean {
  return nameProblem(name) === undefined
}

/** The name itself, or a usageError that states the rule it breaks. */
export function parseTaskName(name: string): string {
  const problem = nameProblem(name)
  if (problem !== undefined) {
    throw usageError(`invalid task name '${show(typeof name === 'string' ? name : String(name))}': ${problem}`)
  }
  return name
}

/**
 * A group's name (`--group`): the task names' rule, so a group is never taken
 * for an id, a path or :latest, and a fan-out's attempts (GROUP-claude-1) are
 * valid task names whenever their group's name is.
 */
export function parseGroupName(name: string, flag = '--group'): string {
  const problem = nameProblem(name)
  if (problem !== undefined) throw usageError(`${flag}: invalid group name '${show(typeof name === 'string' ? name : String(name))}': ${problem}`)
  return name
}

/**
 * The newest task, without its id: `drover logs -f :latest`. A name starts with a letter, so
 * this can never be one; and it needs no quoting in any shell drover runs from (`@latest`
 * would be PowerShell's splatting of a variable, `%` cmd.exe's, `~` a home directory).
 */
export const LATEST_REF = ':latest'

/**
 * A task reference from the command line: an id in canonical decimal form ('7'; not '007', '+7',
 * '0', '-1', '0x1' or '1e9') from 1 to Number.MAX_SAFE_INTEGER, a valid task name, or
 * `:latest` (the task with the highest id). A name must start with a letter, so nothing shaped
 * like a number (or like `:latest`) is ever taken for a name.
 */
export function parseTaskRef(input: string): {kind: 'id'; id: number} | {kind: 'name'; name: string} | {kind: 'latest'} {
  const raw = asString(input)
  if (raw === LATEST_REF) return {kind: 'latest'}
  if (raw !== undefined && /^[0-9]+$/.test(raw)) {
    const id = Number(raw)
    // String(id) === raw rejects leading zeros and digit strings too long to be exact.
    if (id >= 1 && Number.isSafeInteger(id) && String(id) === raw) return {kind: 'id', id}
    const why = id >= 1 && !Number.isSafeInteger(id) ? 'too large' : 'ids are whole numbers from 1, without leading zeros'
    throw usageError(`invalid task id '${show(raw)}' (${why})`)
  }
  const problem = nameProblem(raw)
  if (raw !== undefined && problem === undefined) return {kind: 'name', name: raw}
  // Something name-shaped gets the precise rule it breaks; anything else gets both forms.
  const hint = raw !== undefined && NAME_SHAPE.test(raw) ? problem : `use an id like 7, ${LATEST_REF} for the newest task, or a name of ${NAME_RULE}`
  throw usageError(`invalid task id or name '${show(raw ?? String(input))}' (${hint})`)
}

// ---------------------------------------------------------------------------------------------
// Environment assignments

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * KEY=VALUE for -e. The key matches /^[A-Za-z_][A-Za-z0-9_]*$/; the value is everything after the
 * first '=', may be empty and may contain '='. A NUL in the value is refused here because the OS
 * cannot carry it and spawn would otherwise fail with a TypeError.
 */
export function parseEnvAssignment(input: string): [string, string] {
  const raw = asString(input)
  const eq = raw === undefined ? -1 : raw.indexOf('=')
  if (raw === undefined || eq < 0) {
    throw usageError(`-e: expected KEY=VALUE, got '${show(raw ?? String(input))}'`)
  }
  const key = raw.slice(0, eq)
  const value = raw.slice(eq + 1)
  if (!ENV_KEY.test(key)) {
    throw usageError(
      `-e: invalid variable name '${show(key)}' (use letters, digits and '_', not starting with a digit)`,
    )
  }
  if (value.includes('\0')) throw usageError(`-e: the value of ${key} contains a NUL character`)
  return [key, value]
}

// ---------------------------------------------------------------------------------------------
// Output formats

const pad2 = (n: number) => String(n).padStart(2, '0')

/**
 * A duration for humans, truncated (never rounded up, so 59.9s is '59s', not '1m00s'), with the
 * two largest units: '0s', '950ms', '45s', '3m12s', '2h05m', '3d04h'. Under a second shows ms
 * because a quick task's run time is still worth telling apart. The output always reads back
 * with parseDuration(…, {allowZero: true}). Negative values (clock skew) show as '0s'; NaN and
 * infinities as '?'.
 */
export function formatDuration(ms: number): string {
  if (typeof ms !== 'number' || Number.isNaN(ms) || !Number.isFinite(ms)) return '?'
  const t = Math.floor(ms)
  if (t <= 0) return '0s'
  if (t < 1000) return `${t}ms`
  const totalSeconds = Math.floor(t / 1000)
  if (totalSeconds < 60) return `${totalSeconds}s`
  const totalMinutes = Math.floor(totalSeconds / 60)
  if (totalMinutes < 60) return `${totalMinutes}m${pad2(totalSeconds % 60)}s`
  const totalHours = Math.floor(totalMinutes / 60)
  if (totalHours < 24) return `${totalHours}h${pad2(totalMinutes % 60)}m`
  return `${Math.floor(totalHours / 24)}d${pad2(totalHours % 24)}h`
}

const BYTE_UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'] as const

/**
 * A byte count for humans, in binary units: '0 B', '512 B', '1.5 KiB', '20.0 MiB', '1.0 GiB'.
 * Below 1 KiB it is whole bytes; above, one decimal in the largest unit that keeps the number
 * under 1024 (so 1023.99 KiB shows '1.0 MiB', never '1024.0 KiB'). Negative values keep their
 * sign; NaN and infinities show as '?'.
 */
export function formatBytes(bytes: number): string {
  if (typeof bytes !== 'number' || Number.isNaN(bytes) || !Number.isFinite(bytes)) return '?'
  const whole = Math.round(bytes)
  if (whole === 0) return '0 B' // also -0.4, which must not show as '-0 B'
  if (bytes < 0) return `-${formatBytes(-bytes)}`
  if (whole < KIB) return `${whole} B`
  let value = bytes / KIB
  let unit = 0
  while (unit < BYTE_UNITS.length - 1 && Number(value.toFixed(1)) >= KIB) {
    value /= KIB
    unit++
  }
  return `${value.toFixed(1)} ${BYTE_UNITS[unit]}`
}
