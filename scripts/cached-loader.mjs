// Loads oclif's bundle (oclif.cjs beside this file) the way Node loads a
// CommonJS module, but compiled with V8's code cache when one was made for
// this V8 and CPU (scripts/warm-code-cache.mjs, at build time). V8 checks the
// cache itself and compiles from source when it does not fit (another Node,
// other flags): the cache can make loading faster, never different.
// Copied into dist/cli-bundle/vendor/oclif.js by scripts/bundle-cli.mjs.

import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import vm from 'node:vm'

const file = fileURLToPath(new URL('./oclif.cjs', import.meta.url))
const cacheFile = `${file}.${process.versions.v8}-${process.arch}.cache`

let cachedData
try {
  cachedData = readFileSync(cacheFile)
} catch {
  // no cache for this Node: compiled from source
}

// The wrapper Node puts around a CommonJS module, plus the import() oclif's
// loader uses (import() itself cannot run in vm.Script without a flag).
const script = new vm.Script(
  `(function (exports, require, module, __filename, __dirname, __droverImport) {${readFileSync(file, 'utf8')}\n})`,
  {filename: file, cachedData},
)
const module = {exports: {}}
script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file), (specifier) => import(specifier))

export const oclif = module.exports

/** Writes the code cache for this Node, with every function compiled so far (called at build time, after a warm-up). */
export function saveCodeCache() {
  const temp = `${cacheFile}.${process.pid}.tmp`
  writeFileSync(temp, script.createCachedData())
  renameSync(temp, cacheFile)
  return cacheFile
}
