// Packaging as a user gets it: `npm pack` holds exactly the runtime files, and the
// tarball installed with `npm install -g --prefix` runs (version, start, logs),
// installs its man pages and sets up shell completion.

import {execa} from 'execa'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, expect, it} from 'vitest'
import {cleanupStateDirs, makeStateDir, ROOT, waitFor} from '../helpers/cli.js'

const temps: string[] = []

afterEach(() => {
  cleanupStateDirs()
  for (const dir of temps.splice(0)) rmSync(dir, {recursive: true, force: true})
})

/** npm itself: its JavaScript entry under npm (no shell needed on Windows), else the `npm` on PATH. */
function npm(args: string[], cwd: string) {
  const entry = process.env.npm_execpath
  // The global prefix and local project npm exports to scripts would fight the flags given here.
  const env = {...process.env, npm_config_prefix: undefined, npm_config_global: undefined, npm_config_local_prefix: undefined}
  const options = {cwd, env, extendEnv: false, reject: false, timeout: 120_000, stdin: 'ignore'} as const
  if (entry && /\.c?js$/.test(entry)) return execa(process.execPath, [entry, ...args], options)
  return execa('npm', args, {...options, shell: process.platform === 'win32'})
}

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name)
    return statSync(file).isDirectory() ? walk(file, base) : [path.relative(base, file).split(path.sep).join('/')]
  })
}

/** What a user needs and nothing more: the compiled code without maps, the launchers, man pages, manifest, docs. */
function expectedFiles(): string[] {
  const files = ['package.json', 'bin/run.js', 'bin/run.cmd', 'oclif.manifest.json']
  for (const optional of ['README.md', 'LICENSE']) if (existsSync(path.join(ROOT, optional))) files.push(optional)
  files.push(...walk(path.join(ROOT, 'dist')).filter((file) => !file.endsWith('.map')).map((file) => `dist/${file}`))
  files.push(...readdirSync(path.join(ROOT, 'man')).map((name) => `man/${name}`))
  return files.sort()
}

it('packs only what a user needs, and the installed package runs, has man pages and completion', {timeout: 180_000}, async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'drover-pack-'))
  temps.push(work)
  expect(existsSync(path.join(ROOT, 'oclif.manifest.json')), 'build first: npm run build').toBe(true)

  // --ignore-scripts: prepack would rebuild dist in place under concurrently running
  // tests; `npm test` has just built it, and that build is what gets packed.
  const pack = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT)
  expect(pack.exitCode, pack.stderr).toBe(0)
  const [packed] = JSON.parse(String(pack.stdout)) as [{filename: string; files: {path: string}[]}]
  const files = packed.files.map((file) => file.path).sort()
  expect(files.filter((file) => /^(test|src|scripts|bench)\/|\.map$|^bin\/dev\.js$|\.ts$/.test(file))).toEqual([])
  expect(files).toEqual(expectedFiles())
  expect(files).toContain('man/drover-logs.1')

  const prefix = path.join(work, 'prefix')
  const tarball = path.join(work, path.basename(packed.filename))
  // --prefer-offline: the dependencies are in npm's cache after `npm ci`; the registry is asked only for what is missing.
  const install = await npm(['install', '-g', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund'], work)
  expect(install.exitCode, `${install.stdout}\n${install.stderr}`).toBe(0)

  const stateDir = makeStateDir()
  const cacheDir = path.join(work, 'cache')
  const installed = async (args: string[]) => {
    const env = {
      ...process.env,
      DROVER_STATE_DIR: stateDir,
      DROVER_CACHE_DIR: cacheDir,
      NO_COLOR: '1',
      // NODE_ENV=test (set by the test runner) would make oclif look for TypeScript sources.
      NODE_ENV: undefined,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    }
    const options = {cwd: work, env, reject: false, timeout: 60_000, stdin: 'ignore', stripFinalNewline: false} as const
    // Windows installs a drover.cmd shim, which Node cannot spawn without a shell
    // (and a shell would re-quote the arguments): run the installed entry instead.
    const result =
      process.platform === 'win32'
        ? await execa(process.execPath, [path.join(prefix, 'node_modules', 'drover', 'bin', 'run.js'), ...args], options)
        : await execa(path.join(prefix, 'bin', 'drover'), args, options)
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

  if (process.platform !== 'win32') {
    for (const name of ['drover.1', 'drover-logs.1']) {
      const page = path.join(prefix, 'share', 'man', 'man1', name)
      expect(existsSync(page), `${page} not installed`).toBe(true)
      expect(readFileSync(page, 'utf8')).toBe(readFileSync(path.join(ROOT, 'man', name), 'utf8'))
    }
  }

  // Completion: the setup line for the shell rc file, and the cache the plugin builds.
  const script = await installed(['autocomplete', 'script', 'bash'])
  expect(script.exitCode, script.stderr).toBe(0)
  expect(script.stdout).toContain('DROVER_AC_BASH_SETUP_PATH=')
  const setup = await installed(['autocomplete', 'bash'])
  expect(setup.exitCode, setup.stderr).toBe(0)
  const completion = path.join(cacheDir, 'autocomplete', 'functions', 'bash', 'drover.bash')
  expect(existsSync(completion), `${completion} not built`).toBe(true)
  if (process.platform !== 'win32') {
    const complete = (words: string[]) =>
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _drover_autocomplete; echo "\${COMPREPLY[*]}"`
    const shell = await execa('bash', ['-c', `source '${completion}'; ${complete(['drover', 'lo'])}; ${complete(['drover', 'logs', '--fo'])}`], {
      reject: false,
    })
    expect(String(shell.stdout).split('\n'), String(shell.stderr)).toEqual(['logs', '--follow'])
  }
})
