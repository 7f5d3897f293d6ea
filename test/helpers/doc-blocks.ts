// The documents a reader follows — the README and the guides under docs/ —
// read as tests read them: their fenced code blocks with the marker comment
// before each, and their relative links with the headings they point at.
//
// A block runs in a test when the line before its opening fence is a marker:
//   <!-- runnable -->           test/e2e/docs.test.ts runs it (sh, or js as an ES module)
//   <!-- install: … -->         test/e2e/package.test.ts runs its lines in a fresh copy of the repository

import {existsSync, readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {ROOT} from './cli.js'

/** The README, the project's other top-level documents, and every Markdown file under docs/ (the decision records too). */
export function documents(): string[] {
  const top = ['README.md', 'CHANGELOG.md', 'RELEASING.md'].filter((name) => existsSync(path.join(ROOT, name)))
  const walk = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), {withFileTypes: true}).flatMap((entry) => {
      const file = `${dir}/${entry.name}`
      if (entry.isDirectory()) return walk(file)
      return entry.name.endsWith('.md') ? [file] : []
    })
  return [...top, ...walk('docs')].sort()
}

export interface DocBlock {
  /** the document, relative to the repository */
  file: string
  /** 1-based line of the opening fence */
  line: number
  /** the marker before it: `runnable`, `install`, or null for a block no test runs */
  marker: 'runnable' | 'install' | null
  lang: string
  body: string
}

const MARKER = /^<!--\s*(runnable|install)\b[^>]*-->\s*$/

/** Every fenced block of a document, with the marker on the line before it, if any. */
export function codeBlocks(file: string, text = readFileSync(path.join(ROOT, file), 'utf8')): DocBlock[] {
  const lines = text.split('\n')
  const blocks: DocBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i])
    if (!open) continue
    const fence = open[1]
    let end = i + 1
    while (end < lines.length && !lines[end].trim().startsWith(fence)) end++
    const marker = i > 0 ? MARKER.exec(lines[i - 1].trim()) : null
    blocks.push({file, line: i + 1, marker: marker ? (marker[1] as 'runnable' | 'install') : null, lang: open[2], body: lines.slice(i + 1, end).join('\n') + '\n'})
    i = end
  }
  return blocks
}

/** Lines holding a marker that is not directly followed by a fenced block: a marker that would run nothing. */
export function strayMarkers(file: string, text = readFileSync(path.join(ROOT, file), 'utf8')): number[] {
  const lines = text.split('\n')
  return lines.flatMap((line, i) => (MARKER.test(line.trim()) && !/^\s*(`{3,}|~{3,})/.test(lines[i + 1] ?? '') ? [i + 1] : []))
}

/** The shell lines of a block, comments dropped. */
export function shellLines(block: DocBlock): string[] {
  return block.body
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

/** The lines of a document outside its fenced code blocks, 1-based. */
function proseLines(text: string): {line: number; text: string}[] {
  const prose: {line: number; text: string}[] = []
  let fence: string | null = null
  text.split('\n').forEach((line, i) => {
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fenceMatch) {
      if (fence === null) fence = fenceMatch[1]
      else if (line.trim().startsWith(fence)) fence = null
    } else if (fence === null) prose.push({line: i + 1, text: line})
  })
  return prose
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2 … */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const {text: line} of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = heading[1]
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1])
  return anchors
}

export interface DocLink {
  file: string
  line: number
  target: string
}

/** The relative links and images of a document (not inside code), as written; a link's text may wrap. */
export function relativeLinks(file: string, text = readFileSync(path.join(ROOT, file), 'utf8')): DocLink[] {
  const lines = text.split('\n').map(() => '')
  for (const {line, text: prose} of proseLines(text)) lines[line - 1] = prose
  // inline code may wrap too: blanked, its newlines kept so that line numbers hold
  const prose = lines.join('\n').replace(/`[^`]*`/g, (code) => code.replace(/[^\n]/g, ''))
  const links: DocLink[] = []
  for (const match of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1]
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
    links.push({file, line: prose.slice(0, match.index + match[0].indexOf('](')).split('\n').length, target})
  }
  return links
}
