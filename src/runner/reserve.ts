// Disk-full insurance for the runner: a small ballast file kept in the task folder
// while a run lives, given up to write the record when the disk is full — so the
// outcome of a worker that filled the disk is still recorded, and says why.
// Node builtins only: the runner imports this module.

import {closeSync, constants as fsc, openSync, statfsSync, unlinkSync, writeSync} from 'node:fs'
import path from 'node:path'

/** A record is a few KiB; this leaves room for its temp copy many times over. */
export const RESERVE_BYTES = 64 * 1024

const NOFOLLOW = fsc.O_NOFOLLOW ?? 0
const isFull = (error: unknown) => ['ENOSPC', 'EDQUOT'].includes((error as NodeJS.ErrnoException).code ?? '')

/** In the task folder; a dot-name, so nothing takes it for one of the task's files. */
export const reservePath = (taskDir: string) => path.join(taskDir, '.reserve')

export class DiskReserve {
  private constructor(private file: string | null) {}

  /** No ballast: for a runner that has no task folder yet. */
  static none(): DiskReserve {
    return new DiskReserve(null)
  }

  /** Writes the ballast (real zeros: a sparse file would reserve nothing). Best effort. */
  static create(dir: string): DiskReserve {
    const reserve = new DiskReserve(reservePath(dir))
    let fd: number | null = null
    try {
      fd = openSync(reserve.file!, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC | NOFOLLOW, 0o600)
      const zeros = Buffer.alloc(RESERVE_BYTES)
      for (let done = 0; done < zeros.length; ) done += writeSync(fd, zeros, done)
    } catch {
      reserve.release() // the disk is already full: run without insurance
    } finally {
      if (fd !== null) closeSync(fd)
    }
    return reserve
  }

  /** Runs `write`; when the disk is full, gives up the ballast and runs it once more. */
  write(write: () => void): void {
    try {
      write()
    } catch (error) {
      if (!isFull(error) || this.file === null) throw error
      this.release()
      write()
    }
  }

  release(): void {
    if (this.file === null) return
    try {
      unlinkSync(this.file)
    } catch {
      // gone already
    }
    this.file = null
  }
}

/** Whether the file system holding dir has (almost) no space left for an ordinary user. */
export function diskFull(dir: string): boolean {
  try {
    const stats = statfsSync(dir)
    return stats.bavail * stats.bsize < RESERVE_BYTES
  } catch {
    return false
  }
}
