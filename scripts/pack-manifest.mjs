// The package.json a user installs is not the one we develop with: it has no
// scripts (no `prepare` to build, so npm has no install script to warn about
// and runs nothing on the user's machine) and no devDependencies. `npm pack`
// and `npm publish` run `prepack` (build, then `strip`), pack the files on
// disk, and run `postpack` (`restore`).
//
// Robust by construction: the development manifest is kept, byte for byte, in
// package.json.dev (written atomically before package.json is touched), and
// `strip` first restores a copy left by a pack that died half way, so the
// working tree never keeps the stripped manifest for more than one pack.
//
// Usage: node scripts/pack-manifest.mjs strip|restore [DIR]

import {existsSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** What is published: the development manifest without what only building and testing need. */
export function publishedManifest(manifest) {
  const {scripts, devDependencies, ...published} = manifest
  return published
}

function writeAtomic(file, text) {
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, file)
}

export function strip(dir = ROOT) {
  const file = path.join(dir, 'package.json')
  const kept = path.join(dir, 'package.json.dev')
  if (existsSync(kept)) restore(dir) // a pack that died half way: start from the real manifest again
  const text = readFileSync(file, 'utf8')
  writeAtomic(kept, text)
  writeAtomic(file, `${JSON.stringify(publishedManifest(JSON.parse(text)), null, 2)}\n`)
}

export function restore(dir = ROOT) {
  const kept = path.join(dir, 'package.json.dev')
  if (existsSync(kept)) renameSync(kept, path.join(dir, 'package.json'))
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [mode, dir] = process.argv.slice(2)
  if (mode === 'strip') strip(dir ? path.resolve(dir) : ROOT)
  else if (mode === 'restore') restore(dir ? path.resolve(dir) : ROOT)
  else {
    process.stderr.write('usage: node scripts/pack-manifest.mjs strip|restore [DIR]\n')
    process.exit(2)
  }
}
