// What installing drover costs a user: packs the package as `npm pack` does
// (its prepack builds and writes the published package.json), installs the
// tarball into an empty temp project with the runtime dependencies only, and
// prints the packages installed, their size on disk, npm's install-script
// warnings, and the published package.json's scripts.
//
// Usage: node bench/install-size.mjs [--ignore-scripts]   (the registry is
// asked only for what npm's cache lacks; nothing global is touched)

import {execFileSync, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const work = mkdtempSync(path.join(os.tmpdir(), 'drover-install-size-'))
const env = {...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))), npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false'}

function bytes(dir) {
  let total = 0
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) total += bytes(file)
    else if (entry.isFile()) total += statSync(file).size
  }
  return total
}

try {
  const packArgs = ['pack', '--json', '--pack-destination', work, ...(process.argv.includes('--ignore-scripts') ? ['--ignore-scripts'] : [])]
  // the build in prepack prints to stdout too: npm's JSON is the array at the end
  const packOut = execFileSync('npm', packArgs, {cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']})
  const [packed] = JSON.parse(packOut.slice(packOut.search(/^\[/m)))
  const tarball = path.join(work, packed.filename)
  const app = path.join(work, 'app')
  mkdirSync(app)
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({name: 'app', version: '1.0.0', private: true}))
  const install = spawnSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', tarball], {cwd: app, env, encoding: 'utf8'})
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr}`)
  const ls = execFileSync('npm', ['ls', '--all', '--parseable', '--omit=dev'], {cwd: app, env, encoding: 'utf8'}).trim().split('\n')
  // each runtime dependency's share: the packages its closure holds (resolved in the lockfile as Node resolves them; shared ones counted under each)
  const lock = JSON.parse(readFileSync(path.join(app, 'package-lock.json'), 'utf8')).packages
  const resolve = (from, name) => {
    for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
      const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`
      if (lock[candidate]) return candidate
      if (!dir) return null
    }
  }
  const closure = (start) => {
    const seen = new Set([start])
    const queue = [start]
    while (queue.length > 0) {
      const at = queue.shift()
      for (const dep of Object.keys({...lock[at].dependencies, ...lock[at].optionalDependencies})) {
        const found = resolve(at, dep)
        if (found && !seen.has(found)) {
          seen.add(found)
          queue.push(found)
        }
      }
    }
    return seen
  }
  const droverAt = 'node_modules/drover'
  const perDependency = Object.fromEntries(
    Object.keys(lock[droverAt].dependencies ?? {}).map((name) => {
      const members = closure(resolve(droverAt, name))
      let size = 0
      for (const member of members) size += bytes(path.join(app, member))
      return [name, {packages: members.size, bytes: size}]
    }),
  )
  const diskKiB = Number(execFileSync('du', ['-sk', path.join(app, 'node_modules')], {encoding: 'utf8'}).split(/\s/)[0])
  const published = JSON.parse(execFileSync('tar', ['-xOzf', tarball, 'package/package.json'], {encoding: 'utf8'}))
  const result = {
    tarballBytes: statSync(tarball).size,
    packages: ls.length - 1, // the app itself is the first line
    nodeModulesBytes: bytes(path.join(app, 'node_modules')),
    diskKiB,
    perDependency,
    publishedScripts: published.scripts ?? null,
    publishedDevDependencies: published.devDependencies ? Object.keys(published.devDependencies).length : 0,
    dependencies: Object.keys(published.dependencies ?? {}),
    installOutput: `${install.stdout}${install.stderr}`.trim(),
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
} finally {
  rmSync(work, {recursive: true, force: true})
}
