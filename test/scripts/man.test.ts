// The committed man pages must be exactly what scripts/man.mjs makes from the
// compiled commands' metadata, be listed in package.json "man", and pass groff
// without a warning; the roff escaping is checked by rendering tricky text.

import {execa} from 'execa'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
// @ts-expect-error plain JavaScript module without type declarations
import {escapeText, expandTemplates, inline, page, paragraphs, verbatim} from '../../scripts/man-roff.mjs'

const MAN_DIR = path.join(ROOT, 'man')
const REGENERATE = 'Regenerate them with `npx tsc -p tsconfig.json && npm run man` and commit man/ and package.json.'
const temps: string[] = []

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-man-'))
  temps.push(dir)
  return dir
}

afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, {recursive: true, force: true})
})

const pageFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.1')).sort()

async function groffAvailable(): Promise<boolean> {
  const probe = await execa('groff', ['--version'], {reject: false})
  return probe.exitCode === 0
}

/** Renders roff to plain text, as a terminal would show it. */
async function render(roff: string): Promise<string> {
  const file = path.join(tempDir(), 'page.1')
  writeFileSync(file, roff)
  const result = await execa('groff', ['-man', '-Tutf8', '-ww', file], {env: {...process.env, GROFF_NO_SGR: '1'}})
  expect(result.stderr).toBe('')
  // Strip overstrike bold/underline and unify the dash forms a device may choose.
  return result.stdout.replace(/.\x08/g, '').replace(/[\u2010\u2212]/g, '-')
}

describe('man pages', () => {
  it('match what the generator makes from the commands\' metadata', async () => {
    const out = tempDir()
    const result = await execa(process.execPath, [path.join(ROOT, 'scripts', 'man.mjs'), '--out', out], {cwd: ROOT, reject: false})
    expect(result.exitCode, `generator failed:\n${result.stderr}`).toBe(0)

    const generated = pageFiles(out)
    const committed = pageFiles(MAN_DIR)
    expect(generated, `the set of pages in man/ differs from the commands. ${REGENERATE}`).toEqual(committed)
    expect(generated).toContain('drover.1')
    expect(generated.length).toBeGreaterThan(1)

    const stale: string[] = []
    for (const name of generated) {
      const want = readFileSync(path.join(out, name), 'utf8').split('\n')
      const have = readFileSync(path.join(MAN_DIR, name), 'utf8').split('\n')
      const line = want.findIndex((text, i) => text !== have[i])
      if (line !== -1 || want.length !== have.length) {
        const at = line === -1 ? Math.min(want.length, have.length) : line
        stale.push(`man/${name} line ${at + 1}:\n  committed: ${have[at] ?? '(end)'}\n  generated: ${want[at] ?? '(end)'}`)
      }
    }
    expect(stale, `man pages are out of date with --help. ${REGENERATE}\n${stale.join('\n')}`).toEqual([])
  })

  it('are all listed in package.json "man", so npm installs them', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
    const listed = [...(pkg.man as string[])].sort()
    expect(listed, REGENERATE).toEqual(pageFiles(MAN_DIR).map((name) => `./man/${name}`).sort())
  })

  it('keep no template or unescaped line that roff would take for a request', () => {
    for (const name of pageFiles(MAN_DIR)) {
      const text = readFileSync(path.join(MAN_DIR, name), 'utf8')
      expect(text, name).not.toContain('<%')
      for (const line of text.split('\n')) {
        // Every line is a known request/macro, a comment, or text that does not start with ' or a bare dot.
        if (line.startsWith("'")) throw new Error(`${name}: line starts with ': ${line}`)
        if (line.startsWith('.')) expect(line, name).toMatch(/^\.(\\"|TH|SH|TP|PP|IP|RS|RE|nf|fi|br|BR|if) ?/)
      }
      expect(text, name).not.toMatch(/[^\x00-\x7f]/)
    }
  })

  it('give groff -man -ww no warning', async (context) => {
    if (!(await groffAvailable())) {
      context.skip('groff is not installed here (Debian package groff-base); .ci/run installs it so CI checks this')
    }
    const problems: string[] = []
    for (const name of pageFiles(MAN_DIR)) {
      const result = await execa('groff', ['-man', '-ww', '-z', path.join(MAN_DIR, name)], {reject: false})
      if (result.exitCode !== 0 || result.stderr.trim() !== '') problems.push(`${name} (exit ${result.exitCode}):\n${result.stderr}`)
    }
    expect(problems, problems.join('\n')).toEqual([])
  })
})

describe('roff escaping', () => {
  it('escapes backslashes, dashes and non-ASCII characters', () => {
    expect(escapeText('a-b C:\\dir')).toBe('a\\-b C:\\edir')
    expect(escapeText('wait — done…')).toBe('wait \\[u2014] done\\[u2026]')
    expect(inline('.hidden\n\'quoted\nplain')).toBe("\\&.hidden\n\\&'quoted\nplain")
    expect(inline('run `drover logs -f`')).toBe('run \\fBdrover logs \\-f\\fR')
    expect(expandTemplates('<%= config.bin %> <%= command.id %> -q', 'prune')).toBe('drover prune -q')
  })

  it('renders tricky text exactly as written', async (context) => {
    if (!(await groffAvailable())) context.skip('groff is not installed here (Debian package groff-base)')
    const text = [
      '.SH DESCRIPTION',
      paragraphs([".starts with a dot", "'starts with a quote", 'C:\\Users\\me --state-dir=x \\fB not a font', '── drover: run 2'].join('\n')),
      verbatim(['.drover', 'echo "a\\nb" | drover start --shell -']),
    ].join('\n')
    const shown = await render(page('drover-test', '1.2.3', text))
    for (const expected of [
      '.starts with a dot',
      "'starts with a quote",
      'C:\\Users\\me --state-dir=x \\fB not a font',
      '── drover: run 2',
      '.drover',
      'echo "a\\nb" | drover start --shell -',
      'drover 1.2.3',
    ]) {
      expect(shown).toContain(expected)
    }
  })
})
