// Packaging as a user gets it. `npm pack` holds exactly the runtime files; and
// the README's install lines, run as they are written in a fresh copy of the
// repository (its tracked files, no node_modules, no build), give a working
// `drover` with man pages and shell completion — against a temporary npm
// prefix, never the machine's global one.

import {execa} from 'execa'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, expect, it} from 'vitest'
import {cleanupStateDirs, makeStateDir, ROOT, waitFor} from '../helpers/cli.js'
import {codeBlocks, shellLines} from '../helpers/doc-blocks.js'
import {userEnv} from '../helpers/npm.js'

const temps: string[] = []

// A fresh clone's node_modules (a few hundred MB) takes more than the default 30 s to remove on a busy disk.
afterEach(() => {
  cleanupStateDirs()
  for (const dir of temps.splice(0)) rmSync(dir, {recursive: true, force: true})
}, 180_000)

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name)
    return statSync(file).isDirectory() ? walk(file, base) : [path.relative(base, file).split(path.sep).join('/')]
  })
}

/** What a user needs and nothing more: the compiled code without maps, the launchers, man pages, manifest, docs. */
function expectedFiles(): string[] {
  const files = ['package.json', 'bin/run.js', 'bin/package.json', 'bin/run.cmd', 'oclif.manifest.json']
  for (const optional of ['README.md', 'LICENSE']) if (existsSync(path.join(ROOT, optional))) files.push(optional)
  files.push(...walk(path.join(ROOT, 'dist')).filter((file) => !file.endsWith('.map')).map((file) => `dist/${file}`))
  files.push(...readdirSync(path.join(ROOT, 'man')).map((name) => `man/${name}`))
  return files.sort()
}

/** The shell lines of the README's install block (the fenced block after its `<!-- install: … -->` marker), comments dropped. */
function readmeInstallLines(): string[] {
  const blocks = codeBlocks('README.md').filter((block) => block.marker === 'install')
  expect(blocks.map((block) => block.lang), 'the README marks one install block, of shell lines').toEqual(['sh'])
  return shellLines(blocks[0])
}

it('packs only what a user needs', {timeout: 120_000}, async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'drover-pack-'))
  temps.push(work)
  expect(existsSync(path.join(ROOT, 'oclif.manifest.json')), 'build first: npm run build').toBe(true)
  // --ignore-scripts: prepack would rebuild dist in place under concurrently running
  // tests; `npm test` has just built it, and that build is what gets packed.
  const pack = await execa('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
    cwd: ROOT,
    env: userEnv(path.join(work, 'prefix')),
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  })
  expect(pack.exitCode, String(pack.stderr)).toBe(0)
  const [packed] = JSON.parse(String(pack.stdout)) as [{files: {path: string}[]}]
  const files = packed.files.map((file) => file.path).sort()
  // TypeScript sources stay out; the declarations (.d.ts) of the API are for users' scripts.
  expect(files.filter((file) => /^(test|src|scripts|bench)\/|\.map$|^bin\/dev\.m?js$|(?<!\.d)\.ts$/.test(file))).toEqual([])
  expect(files).toContain('dist/api/index.d.ts')
  expect(files).toEqual(expectedFiles())
  expect(files).toContain('man/drover-logs.1')
})

it('npm pack publishes a package.json without scripts or devDependencies, and leaves ours as it was', {timeout: 120_000}, async () => {
  // The real package.json and the real prepack/postpack scripts, in a copy holding one packed file: the
  // build that prepack runs first is left out (it would rebuild dist under running tests), the rest is npm's own flow.
  const work = mkdtempSync(path.join(os.tmpdir(), 'drover-manifest-'))
  temps.push(work)
  const project = path.join(work, 'drover')
  mkdirSync(path.join(project, 'scripts'), {recursive: true})
  mkdirSync(path.join(project, 'bin'))
  copyFileSync(path.join(ROOT, 'scripts', 'pack-manifest.mjs'), path.join(project, 'scripts', 'pack-manifest.mjs'))
  copyFileSync(path.join(ROOT, 'bin', 'run.js'), path.join(project, 'bin', 'run.js'))
  const ours = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  expect(ours.scripts.prepack).toMatch(/^npm run build --silent && node scripts\/pack-manifest\.mjs strip$/)
  expect(ours.scripts.postpack).toBe('node scripts/pack-manifest.mjs restore')
  const dev = `${JSON.stringify({...ours, man: [], scripts: {...ours.scripts, prepack: ours.scripts.prepack.replace('npm run build --silent && ', '')}}, null, 2)}\n`
  writeFileSync(path.join(project, 'package.json'), dev)
  const pack = await execa('npm', ['pack', '--json', '--pack-destination', work], {cwd: project, env: userEnv(path.join(work, 'prefix')), extendEnv: false, reject: false, timeout: 120_000})
  expect(pack.exitCode, String(pack.stderr)).toBe(0)
  const out = String(pack.stdout)
  const [packed] = JSON.parse(out.slice(out.search(/^\[/m))) as [{filename: string; files: {path: string}[]}]
  const published = JSON.parse(String((await execa('tar', ['-xOzf', path.join(work, packed.filename), 'package/package.json'])).stdout))
  expect(published.scripts).toBeUndefined()
  expect(published.devDependencies).toBeUndefined()
  expect(published.dependencies).toEqual(ours.dependencies)
  expect(published.bin).toEqual(ours.bin)
  // ours is back, byte for byte, and no copy is left behind or packed
  expect(readFileSync(path.join(project, 'package.json'), 'utf8')).toBe(dev)
  expect(existsSync(path.join(project, 'package.json.dev'))).toBe(false)
  expect(packed.files.map((f) => f.path).sort()).toEqual(['bin/run.js', 'package.json'])
  // execa is for tests only: not a dependency a user installs
  expect(Object.keys(ours.dependencies)).not.toContain('execa')
})

// The README's lines are POSIX shell; CI runs this file on Linux (see .github/workflows/ci.yml).
it.skipIf(process.platform === 'win32')("the README's install lines work verbatim in a fresh copy: drover runs, has man pages and completion", {timeout: 600_000}, async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'drover-install-'))
  temps.push(work)
  // A fresh clone: the tracked files as they are now, and nothing that a build or install made.
  const clone = path.join(work, 'drover')
  const tracked = await execa('git', ['ls-files', '-z'], {cwd: ROOT})
  for (const file of String(tracked.stdout).split('\0').filter(Boolean)) {
    if (!existsSync(path.join(ROOT, file))) continue // deleted in the working tree, not yet committed
    mkdirSync(path.dirname(path.join(clone, file)), {recursive: true})
    copyFileSync(path.join(ROOT, file), path.join(clone, file))
  }
  expect(existsSync(path.join(clone, 'node_modules'))).toBe(false)
  expect(existsSync(path.join(clone, 'dist'))).toBe(false)

  const prefix = path.join(work, 'prefix')
  const stateDir = makeStateDir()
  const cacheDir = path.join(work, 'cache')
  const env = userEnv(prefix, {DROVER_STATE_DIR: stateDir, DROVER_CACHE_DIR: cacheDir, NO_COLOR: '1'})
  const hasMan = (await execa('sh', ['-c', 'command -v man'], {reject: false})).exitCode === 0

  const lines = readmeInstallLines()
  expect(lines.slice(0, 2)).toEqual(['npm install', 'npm install -g .'])
  for (const line of lines) {
    if (/^man /.test(line) && !hasMan) continue // checked below from the installed page itself
    const result = await execa('sh', ['-c', line], {cwd: clone, env, extendEnv: false, reject: false, timeout: 300_000, stdin: 'ignore'})
    expect(result.exitCode, `${line}\n${result.stdout}\n${result.stderr}`).toBe(0)
    if (/^man /.test(line)) expect(String(result.stdout)).toMatch(/drover/)
  }
  // Installed into the temporary prefix, nowhere else.
  expect(existsSync(path.join(prefix, 'bin', 'drover'))).toBe(true)
  for (const name of ['drover.1', 'drover-logs.1']) {
    const page = path.join(prefix, 'share', 'man', 'man1', name)
    expect(existsSync(page), `${page} not installed`).toBe(true)
    expect(readFileSync(page, 'utf8')).toBe(readFileSync(path.join(ROOT, 'man', name), 'utf8'))
  }

  const installed = async (args: string[]) => {
    const result = await execa('drover', args, {cwd: work, env, extendEnv: false, reject: false, timeout: 60_000, stdin: 'ignore', stripFinalNewline: false})
    return {stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode}
  }
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  const version = await installed(['--version'])
  expect(version.exitCode, version.stderr).toBe(0)
  expect(version.stdout).toContain(`drover/${pkg.version}`)

  const start = await installed(['start', '--', process.execPath, '-e', 'console.log(42)'])
  expect(start.exitCode, start.stderr).toBe(0)
  expect(start.stdout).toBe('1\n')
  let logs = ''
  await waitFor(async () => (logs = (await installed(['logs', '1'])).stdout) === '42\n', {timeout: 20_000, message: 'drover logs 1 to show 42'}).catch(
    (error: Error) => {
      throw new Error(`${error.message}; it printed ${JSON.stringify(logs)}`)
    },
  )

  // Completion: the script the README's setup line evals, driven as bash drives it on Tab; TASK
  // completes from the installed drover's own listing of the tasks.
  const script = await installed(['completion', 'bash'])
  expect(script.exitCode, script.stderr).toBe(0)
  const complete = (words: string[]) =>
    `COMP_LINE='${words.join(' ')}'; COMP_POINT=\${#COMP_LINE}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _drover; echo "\${COMPREPLY[*]}"`
  const tabs = [complete(['drover', 'lo']), complete(['drover', 'logs', '--fo']), complete(['drover', 'logs', ''])]
  const shell = await execa('bash', ['-c', `eval "$(drover completion bash)"; ${tabs.join('; ')}`], {cwd: work, env, extendEnv: false, reject: false})
  expect(String(shell.stdout).split('\n'), String(shell.stderr)).toEqual(['logs', '--follow', ':latest 1'])
})
