// A long tool result cut for reading without hiding why it failed: its first
// and last lines, and every line between that looks like an error (a test
// runner's FAIL, an exception, a traceback, an exit code), with what was left
// out counted. Shared by `logs --pretty`, MCP's read_output and the dashboard
// so the three views show the same lines.
//
// Why head + tail + error lines rather than only the head: test runners and
// compilers print the failure in the middle and the summary at the end, so the
// first lines alone ("running 40 tests…") hide exactly what a reader came for.

/** A line shown, or a run of lines left out (the count). */
export type ExcerptPart = {line: string} | {skipped: number}

export interface ExcerptOptions {
  /** lines kept from the start and from the end. */
  head: number
  tail: number
  /** error-looking lines kept from the middle at most (the rest counted as skipped). */
  errors: number
  /** characters kept of one line (the rest marked with …). */
  lineChars: number
}

/**
 * What marks a line as an error in the output of the tools agents run: test
 * runners (FAIL, ✗, failed), exceptions (TypeError, Exception, Traceback,
 * panic), shells and make (exit code N, exit status N, Error N). "0 errors" or
 * "error-free" do not match: a word must be Error/ERROR itself or end in Error.
 */
const ERROR_LINE = /\bFAIL(?:ED|URE|S)?\b|\bfailed\b|[✗✖✘]|\b[A-Za-z]*Error\b|\bERR(?:OR)?!?(?=[\s:!]|$)|\berror(?::|\[)|\bTraceback\b|\bException\b|\bpanic(?:ked)?\b|\bexit (?:code|status)\b|\bExit code\b|\bexit [1-9]\d*\b/

export const looksLikeError = (line: string): boolean => ERROR_LINE.test(line)

const cut = (line: string, max: number) => (line.length > max ? `${line.slice(0, max)}…` : line)

/**
 * The parts of `text` to show. A text no longer than head + tail + 1 lines is
 * shown whole (leaving one line out to say "1 more line" saves nothing).
 */
export function excerpt(text: string, opts: ExcerptOptions): ExcerptPart[] {
  const lines = text.replace(/\n+$/, '').split('\n')
  if (lines.length <= opts.head + opts.tail + 1) return lines.map((line) => ({line: cut(line, opts.lineChars)}))
  const keep = new Set<number>()
  for (let i = 0; i < opts.head; i++) keep.add(i)
  for (let i = lines.length - opts.tail; i < lines.length; i++) keep.add(i)
  let errors = 0
  for (let i = opts.head; i < lines.length - opts.tail && errors < opts.errors; i++) {
    if (looksLikeError(lines[i])) {
      keep.add(i)
      errors++
    }
  }
  const parts: ExcerptPart[] = []
  let skipped = 0
  for (let i = 0; i < lines.length; i++) {
    if (!keep.has(i)) {
      skipped++
      continue
    }
    if (skipped > 0) parts.push({skipped})
    skipped = 0
    parts.push({line: cut(lines[i], opts.lineChars)})
  }
  return parts
}

/** How many lines an excerpt left out. */
export const skippedLines = (parts: ExcerptPart[]): number => parts.reduce((n, p) => n + ('skipped' in p ? p.skipped : 0), 0)
