// What installing drover costs a user: packs the package as `npm pack` does
// (its prepack builds and writes the published package.json), installs the
// tarball into an empty temp project with the runtime dependencies only, and
// prints the packages installed, their size on disk, npm's install-script
// warnings, and the published package.json's scripts. With --ignore-scripts
// it packs the build on disk as it is (the published package.json all the same).
//
// Usage: node bench/install-size.mjs [--ignore-scripts]   (the registry is
// asked only for what npm's cache lacks; nothing global is touched)

import {execFileSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {npmEnv, packAndInstall} from './lib/install.mjs'

const work = mkdtempSync(path.join(os.tmpdir(), 'drover-install-size-'))
const env = npmEnv()

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
  const {tarball, app, installOutput} = packAndInstall(work, {build: !process.argv.includes('--ignore-scripts')})
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
    installOutput,
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
} finally {
  rmSync(work, {recursive: true, force: true})
}
