// Loads one of the CLI's CommonJS bundles (vendor/oclif.cjs, vendor/drover.cjs)
// the way Node loads a CommonJS module, but compiled with V8's code cache when
// one fits this V8 and CPU. V8 checks the cache itself and compiles from
// source when it does not fit (another Node, other flags): the cache can make
// loading faster, never different. Bundled, with env-paths, into
// dist/cli-bundle/vendor/cached.cjs by scripts/bundle-cli.mjs: CommonJS, so
// that bin/run.js reaches the bundles without Node's ES module loader.
//
// Where the cache comes from:
// - beside the bundle, made at build time after a warm-up run of the commands
//   (scripts/warm-code-cache.mjs), for the Node that built;
// - else (a package packed on one Node and run on another) from the user's
//   cache dir (env-paths), named by the bundle's content hash, V8's version
//   and the CPU: made there by the first command that finds none — at its
//   exit, holding every function that command compiled — written once, to a
//   temp file renamed into place, the caches of older builds of that bundle
//   for that V8 removed. V8 checks a cache against the source's
//   length only, hence the content hash in its name. Only once the build is
//   done: the build's own runs before its warm-up leave the user's dir alone.

import envPaths from 'env-paths'
import {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import vm from 'node:vm'

const TAG = `${process.versions.v8}-${process.arch}`

function readOrNull(file) {
  try {
    return readFileSync(file)
  } catch {
    return null
  }
}

/** The user's cache file for a bundle of this content on this V8, or null where there is no such dir. */
function userCacheFile(file, hash) {
  try {
    return path.join(envPaths('drover', {suffix: ''}).cache, 'code-cache', `${path.basename(file)}-${hash}.${TAG}.cache`)
  } catch {
    return null
  }
}

/**
 * Whether the build made a cache beside the bundle, for any Node: until it
 * has (oclif's manifest and the help are made from the bundle before the
 * warm-up), a run is the build's own and leaves the user's cache dir alone.
 */
function builtForSomeNode(file) {
  const name = `${path.basename(file)}.`
  try {
    return readdirSync(path.dirname(file)).some((entry) => entry.startsWith(name) && entry.endsWith('.cache'))
  } catch {
    return false
  }
}

/**
 * Removes the caches of the same bundle and V8 made for another build (an
 * older drover): one cache per bundle per Node stays, however many upgrades.
 */
function dropOtherBuilds(userFile) {
  const dir = path.dirname(userFile)
  const name = path.basename(userFile)
  const bundle = name.slice(0, name.indexOf('-'))
  for (const entry of readdirSync(dir)) {
    if (entry !== name && entry.startsWith(`${bundle}-`) && entry.endsWith(`.${TAG}.cache`)) rmSync(path.join(dir, entry), {force: true})
  }
}

function writeAtomic(file, data) {
  mkdirSync(path.dirname(file), {recursive: true})
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, data)
  renameSync(temp, file)
}

/**
 * Runs the bundle `file` with the CommonJS module's own parameters, the
 * import() its code uses (import() itself cannot run in vm.Script without an
 * experimental flag; relative specifiers resolve from this folder, where the
 * bundles are), and `extra` parameters by name. `hash` names the bundle's
 * content (scripts/bundle-cli.mjs), for the user's cache. Returns its exports
 * and the function that writes its code cache beside it.
 */
export function loadCached(file, {extra = {}, hash = null} = {}) {
  const beside = `${file}.${TAG}.cache`
  let cachedData = readOrNull(beside)
  let userFile = null
  // the build's warm-up (warm-code-cache.mjs) writes the cache beside the bundle, not the user's
  if (cachedData === null && hash !== null && globalThis.droverWarmUp !== true && builtForSomeNode(file)) {
    userFile = userCacheFile(file, hash)
    if (userFile !== null) cachedData = readOrNull(userFile)
  }
  const names = ['exports', 'require', 'module', '__filename', '__dirname', '__droverImport', ...Object.keys(extra)]
  // The bundle is ASCII (scripts/bundle-cli.mjs escapes the rest), so latin1 reads it as utf8 would, only faster.
  // It starts the script's second line, so a position in a profile is the bundle's one line down (bench/profile.mjs).
  const script = new vm.Script(`(function (${names.join(', ')}) {\n${readFileSync(file, 'latin1')}\n})`, {filename: file, cachedData: cachedData ?? undefined})
  if (userFile !== null && (cachedData === null || script.cachedDataRejected)) {
    process.once('exit', () => {
      try {
        writeAtomic(userFile, script.createCachedData())
        dropOtherBuilds(userFile)
      } catch {
        // a read-only or full cache dir: the next run compiles from source again
      }
    })
  }
  const module = {exports: {}}
  const importHere = (specifier) => import(specifier)
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file), importHere, ...Object.values(extra))
  return {
    exports: module.exports,
    /** Writes the code cache for this Node beside the bundle, with every function compiled so far (called at build time, after a warm-up). */
    saveCodeCache() {
      writeAtomic(beside, script.createCachedData())
      return beside
    },
  }
}
