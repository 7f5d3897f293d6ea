// The package is ready to publish: `npm publish --dry-run` of the package as
// it would be sent corrects nothing and warns of nothing, and `npm exec` runs
// drover from the tarball as `npx` would for a user.
//
// npm 11 reports what it corrects in a manifest at publish time only (`npm
// pack` stays silent): a bin written `./bin/run.js` gives `"bin[drover]"
// script name bin/run.js was invalid and removed`, a repository URL it
// normalizes a warning of its own. A dry run still asks the registry for the
// package's versions (to refuse a version published before) and warns when it
// has no login for it; with no registry to reach it retries for a minute and
// carries on. So the dry run here publishes to a registry on 127.0.0.1 that
// this test serves: it records each request and answers 404, as the public
// registry answers for a name never published, and a token is configured for
// it, as a publisher's login would be. Nothing leaves the machine.

import {execa} from 'execa'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterEach, expect, it} from 'vitest'
import {cleanupStateDirs, makeStateDir, ROOT} from '../helpers/cli.js'
import {publishablePackage, userEnv} from '../helpers/npm.js'

const temps: string[] = []
const cleanups: (() => void | Promise<void>)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
  cleanupStateDirs()
  for (const dir of temps.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  temps.push(dir)
  return dir
}

/** A registry on 127.0.0.1 that knows no package: every request recorded, every answer 404. */
async function emptyRegistry(): Promise<{url: string; requests: string[]}> {
  const requests: string[] = []
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization ? 'with token' : 'no token'}`)
    res.writeHead(404, {'content-type': 'application/json'})
    res.end('{"error":"Not found"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests}
}

/** No variable that would make npm fetch an identity token from a CI provider (npm's trusted publishing). */
function withoutCiIdentity(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = {...env}
  for (const key of Object.keys(out)) if (/^(ACTIONS_ID_TOKEN_|GITHUB_ACTIONS$|GITLAB_CI$|NPM_ID_TOKEN$|CIRCLECI)/.test(key)) delete out[key]
  return out
}

it('npm publish --dry-run of the package as published corrects nothing and warns of nothing', {timeout: 300_000}, async () => {
  const work = tempDir('drover-publish-')
  const env = withoutCiIdentity(userEnv(path.join(work, 'prefix')))
  const npmVersion = String((await execa('npm', ['--version'], {env, extendEnv: false})).stdout).trim()
  // npm 10 normalizes a manifest at publish without a word, so only npm 11 can show a correction.
  expect(Number(npmVersion.split('.')[0]), `npm ${npmVersion}: this check needs npm 11 or newer (npm install -g npm@11)`).toBeGreaterThanOrEqual(11)

  const {dir} = await publishablePackage(work, env)
  const registry = await emptyRegistry()
  const host = registry.url.replace(/^http:/, '')
  const publish = await execa('npm', ['publish', '--dry-run', '--registry', registry.url, `--${host}:_authToken=dry-run-token`], {
    cwd: dir,
    env,
    extendEnv: false,
    reject: false,
    timeout: 240_000,
  })
  const said = `${publish.stdout}\n${publish.stderr}`
  expect(publish.exitCode, said).toBe(0)
  expect(said).toContain(`Publishing to ${registry.url} with tag latest and default access (dry-run)`)
  // Any correction or warning at all fails: npm prefixes every one with `npm warn`.
  expect(said.split('\n').filter((line) => /^npm (warn|WARN|error|ERR)/.test(line))).toEqual([])
  // It asked for the package's versions (with the token), and sent nothing.
  expect(registry.requests.length).toBeGreaterThan(0)
  expect(registry.requests.every((request) => request === 'GET /drover with token')).toBe(true)

  // What was checked is what a user gets: the bin as written, no ./ to correct, and the fields a registry page shows.
  const published = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
  expect(published.bin).toEqual({drover: 'bin/run.js'})
  for (const field of ['repository', 'homepage', 'bugs', 'license', 'author', 'keywords', 'engines']) expect(published[field], field).toBeTruthy()
  expect(published.repository.url).toMatch(/^git\+https:\/\/.+\.git$/)
})

it('npm exec runs drover from the tarball, as npx does for a user', {timeout: 600_000}, async () => {
  const work = tempDir('drover-npx-')
  const env = userEnv(path.join(work, 'prefix'), {DROVER_STATE_DIR: makeStateDir(), NO_COLOR: '1'})
  const {tarball} = await publishablePackage(work, env)
  const cwd = path.join(work, 'elsewhere')
  await execa('mkdir', [cwd])
  const cache = String((await execa('npm', ['config', 'get', 'cache'], {env, extendEnv: false})).stdout).trim()
  // npx installs the tarball and its dependencies under the cache's _npx/: the one made for this tarball goes with the test.
  cleanups.push(() => {
    const npx = path.join(cache, '_npx')
    if (!existsSync(npx)) return
    for (const entry of readdirSync(npx)) {
      const manifest = path.join(npx, entry, 'package.json')
      if (existsSync(manifest) && readFileSync(manifest, 'utf8').includes(path.basename(work))) rmSync(path.join(npx, entry), {recursive: true, force: true})
    }
  })
  // --offline: the dependencies come from npm's cache, which `npm ci` filled; no registry is asked.
  const npx = (args: string[]) =>
    execa('npm', ['exec', '--offline', '--yes', '--package', `./${path.relative(cwd, tarball)}`, 'drover', '--', ...args], {cwd, env, extendEnv: false, reject: false, timeout: 300_000})
  const version = await npx(['--version'])
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  expect(version.exitCode, String(version.stderr)).toBe(0)
  expect(String(version.stdout)).toContain(`drover/${pkg.version}`)
  // Past the fast path: oclif and the library from the installed dependencies.
  const list = await npx(['list', '--json'])
  expect(list.exitCode, String(list.stderr)).toBe(0)
  expect(JSON.parse(String(list.stdout))).toEqual([])
})
