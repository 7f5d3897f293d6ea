// Loads one of the CLI's CommonJS bundles (vendor/oclif.cjs, vendor/drover.cjs)
// the way Node loads a CommonJS module, but compiled with V8's code cache when
// one was made for this V8 and CPU (scripts/warm-code-cache.mjs, at build
// time). V8 checks the cache itself and compiles from source when it does not
// fit (another Node, other flags): the cache can make loading faster, never
// different. Copied into dist/cli-bundle/vendor/cached.js by scripts/bundle-cli.mjs.

import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import vm from 'node:vm'

/**
 * Runs the bundle at `url` with the CommonJS module's own parameters, the
 * import() its code uses (import() itself cannot run in vm.Script without an
 * experimental flag; relative specifiers resolve from this folder, where the
 * bundles are), and `extra` parameters by name. Returns its exports and the
 * function that writes its code cache.
 */
export function loadCached(url, extra = {}) {
  const file = fileURLToPath(url)
  const cacheFile = `${file}.${process.versions.v8}-${process.arch}.cache`
  let cachedData
  try {
    cachedData = readFileSync(cacheFile)
  } catch {
    // no cache for this Node: compiled from source
  }
  const names = ['exports', 'require', 'module', '__filename', '__dirname', '__droverImport', ...Object.keys(extra)]
  const script = new vm.Script(`(function (${names.join(', ')}) {${readFileSync(file, 'utf8')}\n})`, {filename: file, cachedData})
  const module = {exports: {}}
  const importHere = (specifier) => import(specifier)
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file), importHere, ...Object.values(extra))
  return {
    exports: module.exports,
    /** Writes the code cache for this Node, with every function compiled so far (called at build time, after a warm-up). */
    saveCodeCache() {
      const temp = `${cacheFile}.${process.pid}.tmp`
      writeFileSync(temp, script.createCachedData())
      renameSync(temp, cacheFile)
      return cacheFile
    },
  }
}
