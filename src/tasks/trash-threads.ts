// Deleting a big prune's claimed trees on threads of their own. A deletion
// waits on the disk (an rmdir or unlink blocks for 0.1–0.5 ms on a journaling
// file system), so deletions must overlap; on the thread pool each of their
// ~20 steps per task was a round trip whose completion ran on the main
// thread — the thread that claims the next task. Here a few threads delete
// synchronously (tree-delete.ts) and the main thread only claims.
//
// Claimed tasks go in batches into trash folders of their own
// (tasks/.trash-<unique>/<id>), not beside the task folders: every rename and
// rmdir in a directory takes that directory's lock, and a claim renaming in
// tasks/ waited behind the threads removing trash there. Now the threads work
// in folders the main thread has finished with; a crash leaves a `.trash-`
// folder the next prune clears as debris.

import {existsSync, mkdirSync, rmdirSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import type {Worker} from 'node:worker_threads'
import {DIR_MODE, tasksDir, uniqueSuffix} from '../state/store.js'
import {TRASH_PREFIX} from './tree-delete.js'
import type {TrashDone, TrashJob} from './tree-delete.js'

/** Below this many removals the thread pool does it (removal.ts discard): starting threads costs ~10 ms each. */
export const THREADS_FROM = 64
// Enough to keep the disk busy while the main thread claims; more only crowd two cores.
const THREADS = 4
// Tasks per trash folder, and per message to a thread.
const BATCH = 16

interface Pending {
  resolve: (done: TrashDone) => void
  worker: Worker | null
}

export class TrashThreads {
  private readonly pending = new Map<number, Pending>()
  private readonly load = new Map<Worker, number>()
  private folder: string | null = null
  private jobs: TrashJob[] = []
  private flushQueued = false
  private seq = 0

  private constructor(
    private readonly stateDir: string,
    private readonly workers: Worker[],
    private readonly delays: readonly number[],
  ) {
    for (const worker of workers) {
      this.load.set(worker, 0)
      worker.on('message', (answers: TrashDone[]) => {
        for (const answer of answers) this.settle(answer)
      })
      // A thread that dies takes its jobs with it: they stay hidden trash, each reported.
      const fail = (why: string) => {
        this.load.delete(worker)
        for (const [seq, job] of this.pending) if (job.worker === worker) this.settle({seq, bytes: 0, error: why})
      }
      worker.on('error', (error) => fail(`the deleting thread failed: ${error.message}`))
      worker.on('exit', () => fail('the deleting thread stopped'))
    }
  }

  /** Threads for `count` deletions, or null: running from sources (no built worker), or a thread would not start. */
  static async start(stateDir: string, count: number, delays: readonly number[]): Promise<TrashThreads | null> {
    const entry = fileURLToPath(new URL('./trash-worker.js', import.meta.url))
    if (!existsSync(entry)) return null
    const workers: Worker[] = []
    try {
      const {Worker} = await import('node:worker_threads')
      for (let k = 0; k < Math.min(THREADS, Math.ceil(count / BATCH)); k++) workers.push(new Worker(entry))
      return new TrashThreads(stateDir, workers, delays)
    } catch {
      await Promise.all(workers.map((worker) => worker.terminate()))
      return null
    }
  }

  /** Where claimTask renames task `id` to: in the open trash folder, made on first use. */
  trashFor(id: number): string {
    if (this.folder === null) {
      const folder = path.join(tasksDir(this.stateDir), `${TRASH_PREFIX}${uniqueSuffix()}`)
      mkdirSync(folder, {mode: DIR_MODE})
      this.folder = folder
    }
    return path.join(this.folder, String(id))
  }

  /** Deletes a tree claimed into trashFor's folder, with its lock grave; resolves to its bytes and any error, never rejects. */
  discard(trash: string, grave: string | null): Promise<TrashDone> {
    const seq = this.seq++
    return new Promise<TrashDone>((resolve) => {
      this.jobs.push({seq, trash, grave})
      this.pending.set(seq, {resolve, worker: null})
      if (this.jobs.length >= BATCH) this.flush()
      else if (!this.flushQueued) {
        // The rest of a batch goes as soon as the claims pause (waiting for the threads, or done).
        this.flushQueued = true
        setImmediate(() => this.flush())
      }
    })
  }

  /** Closes the open trash folder and hands it to the least busy thread. */
  private flush(): void {
    this.flushQueued = false
    const folder = this.folder
    // No folder, or one whose claims all failed: it stays open for the next claim.
    if (folder === null || this.jobs.length === 0) return
    const jobs = this.jobs
    this.folder = null
    this.jobs = []
    let worker: Worker | null = null
    for (const [candidate, load] of this.load) if (worker === null || load < this.load.get(worker)!) worker = candidate
    if (worker === null) {
      // Every thread died: the folder stays hidden trash, each task reported.
      for (const job of jobs) this.settle({seq: job.seq, bytes: 0, error: 'no deleting thread is left'})
      return
    }
    this.load.set(worker, this.load.get(worker)! + jobs.length)
    for (const job of jobs) this.pending.get(job.seq)!.worker = worker
    worker.postMessage({folder, jobs, delays: this.delays})
  }

  private settle(done: TrashDone): void {
    const job = this.pending.get(done.seq)
    if (!job) return
    this.pending.delete(done.seq)
    const load = job.worker && this.load.get(job.worker)
    if (job.worker && typeof load === 'number') this.load.set(job.worker, load - 1)
    job.resolve(done)
  }

  /** Hands over what is left, waits for nothing more (the caller awaited its discards) and stops the threads. */
  async close(): Promise<void> {
    this.flush()
    try {
      if (this.folder !== null) rmdirSync(this.folder)
    } catch {
      // left empty: the next prune clears it as debris
    }
    await Promise.all(this.workers.map((worker) => worker.terminate()))
  }
}
