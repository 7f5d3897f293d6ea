// roff building blocks for the man page generator: escaping plain text, turning
// oclif's help text (paragraphs, `code`) into man macros, and flag/argument
// labels written the way `--help` writes them.

// Box-drawing characters appear in drover's own output (the run separator) and
// so in its docs; groff's PostScript fonts lack them, so each page defines an
// ASCII fallback that applies only where the output device has no such glyph.
const GLYPH_FALLBACKS = new Map([
  [0x2500, '\\-'],
  [0x2502, '|'],
])

/** Escapes text for a roff text line: `\` → `\e`, `-` → `\-`, other non-ASCII as `\[uXXXX]`. */
export function escapeText(text) {
  let out = ''
  for (const char of text.normalize('NFC')) {
    const code = char.codePointAt(0)
    if (char === '\\') out += '\\e'
    else if (char === '-') out += '\\-'
    else if (code > 0x7e) out += `\\[u${code.toString(16).toUpperCase().padStart(4, '0')}]`
    else if (code < 0x20 && char !== '\n') out += ' '
    else out += char
  }
  return out
}

/** A `.` or `'` at the start of a line would be read as a request: `\&` neutralises it. */
export function guardLine(line) {
  return /^[.']/.test(line) ? `\\&${line}` : line
}

/** Escaped text with `code` spans set in bold, one roff line per input line. */
export function inline(text) {
  return escapeText(text)
    .replace(/`([^`\n]+)`/g, '\\fB$1\\fR')
    .split('\n')
    .map((line) => guardLine(line.trim()))
    .join('\n')
}

/** oclif templates in help text: `<%= config.bin %>` and `<%= command.id %>`. */
export function expandTemplates(text, id = '') {
  return text.replace(/<%=\s*config\.bin\s*%>/g, 'drover').replace(/<%=\s*command\.id\s*%>/g, id)
}

/**
 * Help text → roff: blank lines separate paragraphs (`.PP`); lines inside a
 * paragraph keep their breaks, as `--help` keeps them; a paragraph whose every
 * line is indented is shown verbatim, like a code block.
 */
export function paragraphs(text) {
  const blocks = text
    .replace(/\r\n/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((block) => block.replace(/^\n+|\s+$/g, ''))
    .filter(Boolean)
  return blocks
    .map((block) => {
      const lines = block.split('\n')
      if (lines.every((line) => /^\s/.test(line))) return verbatim(lines.map((line) => line.replace(/^ {2}|^\t/, '')))
      return `.PP\n${lines.map((line) => inline(line)).join('\n.br\n')}`
    })
    .join('\n')
}

/** Lines shown as typed (commands, crontab lines): no filling, no hyphenation. */
export function verbatim(lines) {
  return ['.PP', '.RS 4', '.nf', ...lines.map((line) => guardLine(escapeText(line))), '.fi', '.RE'].join('\n')
}

/** The label `--help` prints for a flag: `-f, --follow`, `--[no-]color`, `-n, --tail=value`. */
export function flagLabel(flag) {
  const long = flag.type === 'boolean' && flag.allowNo ? `\\-\\-[no\\-]${escapeText(flag.name)}` : `\\-\\-${escapeText(flag.name)}`
  let label = flag.char ? `\\fB\\-${escapeText(flag.char)}\\fR, \\fB${long}\\fR` : `\\fB${long}\\fR`
  if (flag.type === 'option') {
    if (flag.helpValue) label += `=\\fI${escapeText(String(flag.helpValue))}\\fR`
    else if (flag.options) label += `=${flag.options.map((option) => `\\fB${escapeText(option)}\\fR`).join('|')}`
    else label += '=\\fIvalue\\fR'
    if (flag.multiple) label += '...'
  }
  return label
}

/** What `--help` adds after a flag's text: default, environment variable, aliases. */
function flagNotes(flag) {
  const notes = []
  if (flag.required) notes.push('Required.')
  if (flag.type === 'option' && flag.default !== undefined && flag.default !== '') notes.push(`Default: ${flag.default}.`)
  if (flag.env) notes.push(`Environment: ${flag.env}.`)
  const aliases = [...(flag.aliases ?? []), ...(flag.charAliases ?? [])]
  if (aliases.length > 0) {
    const names = aliases.map((alias) => (alias.length === 1 ? `-${alias}` : `--${alias}`))
    notes.push(`Also ${names.map((name) => '`' + name + '`').join(', ')}.`)
  }
  return notes.join(' ')
}

/** `.TP` entries for flags, sorted as `--help` sorts them: short flags first, then by name. */
export function flagEntries(flags) {
  const sorted = [...flags].sort((a, b) => {
    if (Boolean(a.char) !== Boolean(b.char)) return a.char ? -1 : 1
    if (a.char && b.char && a.char !== b.char) return a.char < b.char ? -1 : 1
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
  })
  return sorted
    .map((flag) => {
      const lines = ['.TP', flagLabel(flag), inline(expandTemplates(flag.summary || flag.description || ''))]
      if (flag.summary && flag.description) lines.push(paragraphs(expandTemplates(flag.description)).replace(/^\.PP$/gm, '.IP'))
      const notes = flagNotes(flag)
      if (notes) lines.push('.br', inline(notes))
      return lines.join('\n')
    })
    .join('\n')
}

/** Groups visible flags like `--help`: ungrouped ones first, then each helpGroup in order of appearance. */
export function groupFlags(flags) {
  const groups = new Map([['', []]])
  for (const flag of Object.entries(flags ?? {}).map(([name, f]) => ({...f, name}))) {
    if (flag.hidden) continue
    const group = flag.helpGroup ?? ''
    if (!groups.has(group)) groups.set(group, [])
    groups.get(group).push(flag)
  }
  return groups
}

/**
 * A whole page: the header (with glyph fallbacks for the characters the body
 * uses) and the body, minus the `.PP` right after a heading, which is redundant.
 */
export function page(title, version, body) {
  const text = body.replace(/^(\.SH .*)\n\.PP$/gm, '$1')
  const lines = [
    '.\\" Generated by scripts/man.mjs from the commands\' own metadata; do not edit.',
    '.\\" Regenerate with: npm run man',
    `.TH ${escapeText(title.toUpperCase())} 1 "" "drover ${escapeText(version)}" "User Commands"`,
  ]
  for (const [code, fallback] of GLYPH_FALLBACKS) {
    const glyph = `\\[u${code.toString(16).toUpperCase().padStart(4, '0')}]`
    if (text.includes(glyph)) lines.push(`.if !c${glyph} .char ${glyph} ${fallback}`)
  }
  return `${lines.join('\n')}\n${text}\n`
}

/** The one-line NAME text: the summary without its final period, lower-cased like man pages' NAME lines. */
export function nameLine(summary) {
  let text = (summary ?? '').trim().replace(/\.$/, '')
  if (/^[A-Z][a-z]/.test(text)) text = text[0].toLowerCase() + text.slice(1)
  return text
}
