// The README stays short, and every relative link in it and in the guides
// (and the other documents under docs/) leads somewhere: the file is there,
// inside the repository, and an #anchor names a heading of the file it points at.

import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {codeBlocks, documents, headingAnchors, relativeLinks, strayMarkers} from '../helpers/doc-blocks.js'

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8')

/** Where a link leads, relative to the repository, and why not when it leads nowhere. */
function resolve(from: string, target: string): {file: string; problem: string | null} {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined]
  const file = pathPart === '' ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURI(pathPart)))
  if (file.startsWith('../') || path.posix.isAbsolute(file)) return {file, problem: 'leads out of the repository'}
  if (!existsSync(path.join(ROOT, file))) return {file, problem: 'no such file'}
  if (anchor !== undefined && file.endsWith('.md') && !headingAnchors(read(file)).has(decodeURIComponent(anchor))) {
    return {file, problem: `no heading #${anchor} in ${file}`}
  }
  return {file, problem: null}
}

/** The guides the README names (docs/*.md), found from the README by following links. */
function reachableFromReadme(): Set<string> {
  const seen = new Set(['README.md'])
  const queue = ['README.md']
  while (queue.length > 0) {
    const from = queue.shift()!
    for (const link of relativeLinks(from)) {
      const {file, problem} = resolve(from, link.target)
      if (problem === null && file.endsWith('.md') && !seen.has(file)) {
        seen.add(file)
        queue.push(file)
      }
    }
  }
  return seen
}

describe('the README and the guides', () => {
  it('the README is at most 400 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(400)
  })

  it.each(documents())('%s: every relative link resolves', (file) => {
    const broken = relativeLinks(file).flatMap((link) => {
      const {problem} = resolve(file, link.target)
      return problem === null ? [] : [`${file}:${link.line}: (${link.target}) ${problem}`]
    })
    expect(broken).toEqual([])
  })

  it.each(documents())('%s: every runnable marker stands right before a code block', (file) => {
    expect(strayMarkers(file)).toEqual([])
  })

  it('the architecture page reads in one sitting: at most 500 lines', () => {
    expect(read('docs/architecture.md').split('\n').length).toBeLessThanOrEqual(500)
  })

  it('every guide in docs/ is reached from the README', () => {
    const reachable = reachableFromReadme()
    const guides = documents().filter((file) => /^docs\/[^/]+\.md$/.test(file))
    expect(guides.length).toBeGreaterThan(10)
    expect(guides.filter((file) => !reachable.has(file))).toEqual([])
  })
})

describe('how documents are read', () => {
  const text = [
    '# Top',
    '## Exit codes',
    '## Exit codes',
    '## `drover top`: the terminal UI',
    'See [the codes](#exit-codes), [again](#exit-codes-1) and [a',
    'wrapped one](other.md#x), not `[code](nowhere.md)`, nor [web](https://example.com).',
    '<!-- runnable -->',
    '```sh',
    'echo [not](a-link.md)',
    '```',
    '<!-- runnable -->',
    'no block here',
  ].join('\n')

  it('anchors as GitHub makes them, repeats numbered', () => {
    expect([...headingAnchors(text)]).toEqual(['top', 'exit-codes', 'exit-codes-1', 'drover-top-the-terminal-ui'])
  })

  it('links outside code, wrapped ones with the line their target is on', () => {
    expect(relativeLinks('x.md', text).map((link) => [link.line, link.target])).toEqual([
      [5, '#exit-codes'],
      [5, '#exit-codes-1'],
      [6, 'other.md#x'],
    ])
  })

  it('a link to a missing file or heading is reported', () => {
    expect(resolve('README.md', 'docs/no-such-guide.md').problem).toBe('no such file')
    expect(resolve('README.md', '#no-such-heading').problem).toBe('no heading #no-such-heading in README.md')
    expect(resolve('docs/agents.md', '../../elsewhere.md').problem).toBe('leads out of the repository')
  })

  it('a marker runs the block right after it, and a marker with no block is stray', () => {
    const blocks = codeBlocks('x.md', text)
    expect(blocks.map((block) => [block.line, block.marker, block.lang, block.body])).toEqual([[8, 'runnable', 'sh', 'echo [not](a-link.md)\n']])
    expect(strayMarkers('x.md', text)).toEqual([11])
  })
})
