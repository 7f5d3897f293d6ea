// What the caches made beside a summary segment (name-index.ts, view-index.ts)
// share: the segment read together with the stamp it had when read, the
// sidecar's file name, and the removal of sidecars whose segment is gone.
//
// A segment is never written twice: while its stamp (identity, size,
// modification time) holds, what was read out of it holds too. The stamp is
// taken from the file opened, so it is the stamp of the bytes read.

import {closeSync, constants as fsc, fstatSync, openSync, readdirSync, readFileSync, unlinkSync, type Stats} from 'node:fs'
import path from 'node:path'
import {NOFOLLOW, summaryDir} from './layout.js'
import {retryOnBusySync} from '../platform/platform.js'
import {readSegmentBytes, segmentName} from './summary.js'

export const fileStamp = (stat: Stats) => `${stat.ino}:${stat.size}:${stat.mtimeMs}`

/** Where a segment's sidecar of this kind lies (`ext`: names, views). */
export const sidecarPath = (stateDir: string, seq: number, ext: string) => path.join(summaryDir(stateDir), segmentName(seq).replace(/\.ndjson$/, `.${ext}`))

/** The stamp a segment has now; null when it is gone (merged by a compaction). */
export function segmentStamp(stateDir: string, seq: number): string | null {
  const file = path.join(summaryDir(stateDir), segmentName(seq))
  let fd: number
  try {
    fd = retryOnBusySync(() => openSync(file, fsc.O_RDONLY | NOFOLLOW))
  } catch {
    return null
  }
  try {
    return fileStamp(fstatSync(fd))
  } finally {
    closeSync(fd)
  }
}

/** A segment's bytes and the stamp of the file they came from; 'vanished' when it is gone, null when it cannot be read. */
export function readSegmentStamped(stateDir: string, seq: number): {bytes: Buffer; stamp: string} | 'vanished' | null {
  const file = path.join(summaryDir(stateDir), segmentName(seq))
  let fd: number
  try {
    fd = retryOnBusySync(() => openSync(file, fsc.O_RDONLY | NOFOLLOW))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'vanished' : null
  }
  try {
    const stamp = fileStamp(fstatSync(fd))
    return {bytes: readFileSync(fd), stamp}
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

/** A sidecar's bytes, or null (none yet, or unreadable: made again by the caller). */
export function readSidecar(stateDir: string, seq: number, ext: string): Buffer | null {
  try {
    return readSegmentBytes(sidecarPath(stateDir, seq, ext))
  } catch {
    return null
  }
}

/** Removes the sidecars of this kind whose segment is not among `seqs`: they would never be used again. */
export function removeOrphanSidecars(stateDir: string, seqs: number[], ext: string): void {
  const pattern = new RegExp(`^seg-(\\d{12})\\.${ext}$`)
  const present = new Set(seqs)
  let names: string[]
  try {
    names = readdirSync(summaryDir(stateDir))
  } catch {
    return
  }
  for (const name of names) {
    const m = pattern.exec(name)
    if (!m || present.has(Number(m[1]))) continue
    try {
      unlinkSync(path.join(summaryDir(stateDir), name))
    } catch {
      // removed by another reader
    }
  }
}
