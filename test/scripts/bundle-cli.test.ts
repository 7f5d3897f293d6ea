// The CLI runs from dist/cli-bundle (scripts/bundle-cli.mjs): oclif in one
// file compiled with a code cache made at build time. The cache may only
// make loading faster: without it, or with one V8 refuses, every command
// still works and prints the same. Checked on a copy of the built package.

import {execa} from 'execa'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {wineLacks} from '../helpers/skips.js'

let copy: string
let stateDir: string
const vendor = () => path.join(copy, 'dist', 'cli-bundle', 'vendor')

async function run(args: string[], env: Record<string, string> = {}) {
  const r = await execa(process.execPath, [path.join(copy, 'bin', 'run.js'), ...args], {
    env: {...process.env, NODE_ENV: undefined, DROVER_STATE_DIR: stateDir, NO_COLOR: '1', ...env},
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  })
  return {stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode}
}

/** What the commands print: a run, a usage error, a missing task, a command's help through oclif (FORCE_COLOR=0 keeps it off the fast path). */
async function outputs(env: Record<string, string> = {}) {
  return {
    list: await run(['list', '--json'], env),
    badFlag: await run(['list', '--bogus'], env),
    missing: await run(['status', '42'], env),
    help: await execa(process.execPath, [path.join(copy, 'bin', 'run.js'), 'status', '--help'], {env: {...process.env, NODE_ENV: undefined, FORCE_COLOR: '0'}, reject: false}).then((r) => String(r.stdout)),
  }
}

wineLacks('junctions (its node_modules is linked into the copy)').describe('the code cache of oclif', () => {
  beforeAll(() => {
    copy = mkdtempSync(path.join(os.tmpdir(), 'drover-bundle-'))
    for (const entry of ['bin', 'dist', 'package.json', 'oclif.manifest.json']) cpSync(path.join(ROOT, entry), path.join(copy, entry), {recursive: true})
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), process.platform === 'win32' ? 'junction' : 'dir')
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'drover-bundle-state-'))
  })
  afterAll(() => {
    rmSync(copy, {recursive: true, force: true})
    rmSync(stateDir, {recursive: true, force: true})
  })

  it('is made by the build for this Node', () => {
    expect(readdirSync(path.join(ROOT, 'dist', 'cli-bundle', 'vendor')).filter((f) => f.endsWith('.cache')).length, 'build first: npm run build').toBeGreaterThan(0)
  })

  it('changes nothing a command prints when it is missing or refused', async () => {
    const cached = await outputs()
    expect(cached.list).toMatchObject({stdout: '[]', exitCode: 0})
    expect(cached.badFlag.exitCode).toBe(2)
    expect(cached.missing.exitCode).toBe(3)
    expect(cached.help).toContain('USAGE')

    const caches = readdirSync(vendor()).filter((f) => f.endsWith('.cache'))
    // Garbage in place of the cache: V8 refuses it and compiles from source.
    for (const file of caches) writeFileSync(path.join(vendor(), file), 'not a code cache')
    expect(await outputs()).toEqual(cached)
    // No cache at all (a Node the build did not make one for).
    for (const file of caches) rmSync(path.join(vendor(), file))
    expect(caches.every((file) => !existsSync(path.join(vendor(), file)))).toBe(true)
    expect(await outputs()).toEqual(cached)
  })

  // Issue 41: a package packed on one Node ships that Node's caches only.
  it('is made for the running Node in the user\'s cache dir, once, when the package has one for another Node only', async () => {
    const cached = await outputs()
    for (const file of readdirSync(vendor()).filter((f) => f.endsWith('.cache'))) rmSync(path.join(vendor(), file))
    const home = mkdtempSync(path.join(os.tmpdir(), 'drover-bundle-home-'))
    // where env-paths puts the user's cache dir on each OS
    const env = {XDG_CACHE_HOME: path.join(home, 'cache'), HOME: home, LOCALAPPDATA: path.join(home, 'local')}
    const userCaches = () =>
      readdirSync(home, {recursive: true, encoding: 'utf8'})
        .filter((f) => f.endsWith(`.${process.versions.v8}-${process.arch}.cache`))
        .map((f) => path.join(home, f))
        .sort()
    try {
      // No cache beside the bundles for any Node: a build before its warm-up, which leaves the user's dir alone.
      expect(await outputs(env)).toEqual(cached)
      expect(userCaches()).toEqual([])
      // A cache for another Node only, as in a package packed there; in the user's dir, one an older drover made.
      for (const bundle of ['oclif.cjs', 'drover.cjs']) writeFileSync(path.join(vendor(), `${bundle}.0.0.0-other-${process.arch}.cache`), 'made by another Node')
      const older = path.join(env.XDG_CACHE_HOME, 'drover', 'code-cache', `drover.cjs-0123456789abcdef.${process.versions.v8}-${process.arch}.cache`)
      mkdirSync(path.dirname(older), {recursive: true})
      writeFileSync(older, 'an older build')
      expect((await run(['list', '--json'], env)).stdout).toBe('[]')
      if (process.platform === 'linux') expect(existsSync(older)).toBe(false)
      rmSync(older, {force: true})
      const made = userCaches()
      expect(made.map((f) => path.basename(f).replace(/-[0-9a-f]{16}\./, '-HASH.'))).toEqual([`drover.cjs-HASH.${process.versions.v8}-${process.arch}.cache`, `oclif.cjs-HASH.${process.versions.v8}-${process.arch}.cache`])
      expect(made.every((f) => path.dirname(f).endsWith(path.join('drover', ...(process.platform === 'win32' ? ['Cache'] : []), 'code-cache')))).toBe(true)
      const stamps = made.map((f) => statSync(f).mtimeMs)
      // Used from then on, not made again, and nothing prints differently.
      expect(await outputs(env)).toEqual(cached)
      expect(made.map((f) => statSync(f).mtimeMs)).toEqual(stamps)
      // One V8 refuses is made again.
      for (const file of made) writeFileSync(file, 'not a code cache')
      expect(await outputs(env)).toEqual(cached)
      expect(made.every((f) => readFileSync(f, 'utf8') !== 'not a code cache')).toBe(true)
    } finally {
      rmSync(home, {recursive: true, force: true})
    }
  })
})

describe('the bundle of oclif', () => {
  // localeCompare's first call sets up ICU's collation: 10 ms of every command, for sorting ids that are ASCII.
  it('sorts a plugin\'s commands by code unit, not with localeCompare, in the order localeCompare gives drover\'s', () => {
    const bundle = readFileSync(path.join(ROOT, 'dist', 'cli-bundle', 'vendor', 'oclif.cjs'), 'utf8')
    expect(bundle).not.toContain('localeCompare')
    expect(bundle).toContain('a.id<b.id?-1:a.id>b.id?1:0')
    const ids = Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: object}).commands)
    expect(ids.length).toBeGreaterThan(10)
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual([...ids].sort((a, b) => a.localeCompare(b)))
  })
})
