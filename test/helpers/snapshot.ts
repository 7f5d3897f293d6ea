// A byte-for-byte picture of a directory tree, for "nothing changed on disk" checks.

import {lstatSync, readdirSync, readFileSync, readlinkSync} from 'node:fs'
import path from 'node:path'

// The derived index (src/state/index.ts, index-listing.ts): a cache any look
// at the tasks may write — the kept listing of tasks/ once tasks/ has stood
// still for 2 s, a refused name lookup too, whose listing came before the
// refusal; a full read's segments — and never the state.
const isIndex = (rel: string) => rel === 'index' || rel.startsWith(`index${path.sep}`)

/**
 * Every path under dir with its type, mode, size, mtime and content (files) or target
 * (links): equal snapshots mean nothing was created, removed, written or even touched —
 * but for the derived index, a cache.
 */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (current: string) => {
    for (const name of readdirSync(current).sort()) {
      const full = path.join(current, name)
      const rel = path.relative(dir, full)
      if (isIndex(rel)) continue
      const s = lstatSync(full)
      const mode = (s.mode & 0o7777).toString(8)
      if (s.isSymbolicLink()) out[rel] = `link ${readlinkSync(full)}`
      else if (s.isDirectory()) {
        out[rel] = `dir ${mode}`
        walk(full)
      } else out[rel] = `file ${mode} ${s.size} ${s.mtimeMs} ${readFileSync(full).toString('base64')}`
    }
  }
  const top = lstatSync(dir)
  out['.'] = `dir ${(top.mode & 0o7777).toString(8)} uid ${top.uid}`
  walk(dir)
  return out
}
