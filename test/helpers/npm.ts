// npm as a user and a publisher run it, for the packaging tests: a shell's
// environment without `npm test`'s own variables, and the package exactly as
// `npm publish` would send it, made without rebuilding dist under running tests.

import {execa} from 'execa'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {expect} from 'vitest'
import {publishedManifest} from '../../scripts/pack-manifest.mjs'
import {ROOT} from './cli.js'

/**
 * The environment of a person's shell: none of the npm_* variables `npm test`
 * exports (its prefix and project would fight the lines run here), drover on
 * PATH from the temporary prefix, and the dependencies taken from npm's cache
 * when they are there (the registry is asked only for what is missing).
 */
export function userEnv(prefix: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {}
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value
  return {
    ...env,
    npm_config_prefix: prefix,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    // NODE_ENV=test (set by the test runner) would make oclif look for TypeScript sources.
    NODE_ENV: undefined,
    MANPATH: undefined,
    MANPAGER: 'cat',
    PAGER: 'cat',
    PATH: [path.join(prefix, 'bin'), path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
    ...extra,
  }
}

/**
 * The package as `npm publish` sends it, in `work`: `npm pack` of the built
 * tree (without prepack, which would rebuild dist under concurrently running
 * tests: `npm test` has just built it), unpacked, its package.json replaced by
 * the one prepack's strip writes (no scripts, no devDependencies: the second
 * packaging test proves strip does exactly this), and packed again from there
 * as publish packs it. Returns the unpacked folder and the tarball.
 */
export async function publishablePackage(work: string, env: Record<string, string | undefined>): Promise<{dir: string; tarball: string}> {
  const pack = await execa('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {cwd: ROOT, env, extendEnv: false, reject: false, timeout: 120_000})
  expect(pack.exitCode, String(pack.stderr)).toBe(0)
  const [{filename}] = JSON.parse(String(pack.stdout)) as [{filename: string}]
  await execa('tar', ['-xzf', filename], {cwd: work})
  const dir = path.join(work, 'package')
  const manifest = path.join(dir, 'package.json')
  writeFileSync(manifest, `${JSON.stringify(publishedManifest(JSON.parse(readFileSync(manifest, 'utf8'))), null, 2)}\n`)
  const repack = await execa('npm', ['pack', '--json', '--pack-destination', work], {cwd: dir, env, extendEnv: false, reject: false, timeout: 120_000})
  expect(repack.exitCode, String(repack.stderr)).toBe(0)
  const [{filename: published}] = JSON.parse(String(repack.stdout)) as [{filename: string}]
  return {dir, tarball: path.join(work, published)}
}
