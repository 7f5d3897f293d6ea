// Every code block the README and the guides mark `<!-- runnable -->` runs as a
// reader would paste it, so a guide cannot rot: the blocks of one document in
// order, in one sandbox of its own — a fresh state dir, a home, a git
// repository as the working directory, the built drover on PATH as `drover`,
// and the test stand-ins of claude and codex before the real ones (the
// guides' agents are real commands; these answer them offline). A shell
// block runs under `sh -e`, so every line must succeed; a js block runs as an
// ES module that imports 'drover' as a user's script does.

import {execa} from 'execa'
import {mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, fixture, makeStateDir, makeTempDir, ROOT} from '../helpers/cli.js'
import {codeBlocks, documents, type DocBlock} from '../helpers/doc-blocks.js'
import {GIT_IDENTITY, gitIn} from '../helpers/git.js'
import {posixOnly} from '../helpers/skips.js'

afterEach(() => {
  cleanupStateDirs()
})

const runnable = new Map(documents().map((file) => [file, codeBlocks(file).filter((block) => block.marker === 'runnable')] as const))

/** A reader's machine in miniature; the blocks of one document share it, as one terminal session would. */
function sandbox() {
  const root = makeTempDir('drover-docs-')
  const bin = path.join(root, 'bin')
  const home = path.join(root, 'home')
  const repo = path.join(root, 'repo')
  for (const dir of [bin, home, repo]) mkdirSync(dir)
  symlinkSync(BIN, path.join(bin, 'drover'))
  // `import … from 'drover'` in a js block resolves here, to this checkout, as an installed package would.
  mkdirSync(path.join(root, 'node_modules'))
  symlinkSync(ROOT, path.join(root, 'node_modules', 'drover'))
  gitIn(repo, 'init', '-q', '-b', 'main')
  writeFileSync(path.join(repo, 'README.md'), '# app\n')
  gitIn(repo, 'add', 'README.md')
  gitIn(repo, 'commit', '-q', '-m', 'first')
  const env = {
    ...GIT_IDENTITY,
    HOME: home,
    PATH: [bin, fixture('bin'), path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
    DROVER_STATE_DIR: makeStateDir(),
    NO_COLOR: '1',
    // The stand-in agents' pace: a run of 30 short turns (3 s), long enough for the
    // guides to drain an agent they just started, short enough to wait for.
    FAKE_AGENT_TURN_MS: '100',
    FAKE_AGENT_TURNS: '30',
  }
  return {root, repo, env}
}

async function run(block: DocBlock, box: ReturnType<typeof sandbox>, index: number) {
  const options = {cwd: box.repo, env: box.env, extendEnv: false, reject: false, timeout: 240_000, stdin: 'ignore'} as const
  if (block.lang === 'sh') return execa('sh', ['-e', '-c', block.body], options)
  if (block.lang === 'js') {
    const script = path.join(box.root, `block-${index}.mjs`)
    writeFileSync(script, block.body)
    return execa(process.execPath, [script], options)
  }
  throw new Error(`${block.file}:${block.line}: a runnable block must be sh or js, not '${block.lang}'`)
}

describe('the runnable blocks of the README and the guides', () => {
  it('the README marks its quick start and its tour runnable, and the guides mark theirs', () => {
    expect(runnable.get('README.md')!.length).toBeGreaterThanOrEqual(2)
    const guides = [...runnable].filter(([file, blocks]) => file.startsWith('docs/') && blocks.length > 0)
    expect(guides.length).toBeGreaterThanOrEqual(5)
  })
})

posixOnly('sh, symlinks and the stand-in agents').describe('each document, its blocks in order', () => {
  it.each([...runnable].filter(([, blocks]) => blocks.length > 0))('%s', {timeout: 600_000}, async (file, blocks) => {
    const box = sandbox()
    for (const [index, block] of blocks.entries()) {
      const result = await run(block, box, index)
      expect(result.exitCode, `${file}:${block.line} (${block.lang}) failed:\n${block.body}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0)
    }
  })
})
