// The runner's last act: when its task has ended, hand the slot on. It
// advances every queue (a task that ended may also be the dependency others
// wait on, in any queue) and spawns the runners of the tasks it moved to
// `starting`, without waiting for them: it is about to exit, and each new
// runner records its own start. A Slurm task's next run is a job of its own;
// a runner that is itself a Slurm job on a compute node places only those
// (a local task must start on the submit host: the next drover command there
// starts it), and waits for its exit hooks, which the job's end would kill.

import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, existsSync} from 'node:fs'
import {advanceAll} from './advance.js'
import {selfEntry} from './exit-hooks.js'
import {queuesDir} from '../state/queues.js'
import {openAppend, readRecord, taskPaths} from '../state/store.js'
import {placeJob} from './slurm-submit.js'

export {selfEntry}

/**
 * `remote`: this runner is a batch job on a cluster node (see the top of this
 * file). `hooks`: the supervisors the run's end started (exit hooks, status hooks).
 */
export async function handOff(stateDir: string, id: number, opts: {remote?: boolean; hooks?: (ChildProcess | null)[]} = {}): Promise<void> {
  try {
    await moveQueuesOn(stateDir, id, opts.remote ?? false)
  } finally {
    if (opts.remote) for (const hooks of opts.hooks ?? []) if (hooks) await exited(hooks)
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  child.ref()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.once('error', () => resolve())
  })
}

async function moveQueuesOn(stateDir: string, id: number, remote: boolean): Promise<void> {
  const ended = readRecord(stateDir, id)
  if (!existsSync(queuesDir(stateDir))) return
  const record = ended.ok ? ended.record : null
  // Its slot was freed as its end was recorded (settle.ts).
  // A drain empties the machine (a shutdown, usually): its freed slot is not
  // handed on here, or draining would start the next tasks. The next drover
  // command advances the queue.
  // Nor by a runner that was itself told to go (lost): a shutdown, usually.
  if (record?.status === 'drained' || record?.status === 'lost') return
  await advanceAndLaunch(stateDir, remote)
  // A retry's delay: this runner waits it out (holding no slot) and then moves the queue on, so the attempt starts on time.
  if (record?.status === 'queued' && record.retryAt !== null && (await retryDue(stateDir, id, record.retryAt))) await advanceAndLaunch(stateDir, remote)
}

/** How often a runner waiting out a retry's delay looks at the record. */
const RETRY_LOOK_MS = 500
/** Past the retry's time, so the advancer finds it due. */
const RETRY_MARGIN_MS = 20

/**
 * Waits until the retry at `retryAt` is due, true then; false as soon as the
 * task no longer waits for it — stopped or cancelled (a final status: no
 * process of the task may outlive it), started by `start ID`, removed, or its
 * state dir deleted. The delay may be hours, and no file names this runner
 * meanwhile (runner.json went with the run), so nothing else would end it.
 */
async function retryDue(stateDir: string, id: number, retryAt: string): Promise<boolean> {
  const due = Date.parse(retryAt) + RETRY_MARGIN_MS
  for (;;) {
    const read = readRecord(stateDir, id)
    if (!read.ok || read.record.status !== 'queued' || read.record.retryAt !== retryAt) return false
    const left = due - Date.now()
    if (left <= 0) return true
    await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_LOOK_MS, left)))
  }
}

async function advanceAndLaunch(stateDir: string, remote: boolean): Promise<void> {
  // A task ended `skipped` had its hooks fired as that was recorded (settle.ts).
  const {started} = await advanceAll(stateDir, {entry: selfEntry(), ...(remote ? {launchable: (record) => record.executor === 'slurm'} : {})})
  for (const next of started) {
    const read = readRecord(stateDir, next)
    if (read.ok && read.record.executor === 'slurm') placeJob(stateDir, next, selfEntry())
    else spawnSiblingRunner(stateDir, next)
  }
}

/** A runner for another task, started the way this one was (same script, same Node flags). */
function spawnSiblingRunner(stateDir: string, id: number): void {
  const logFd = openAppend(taskPaths(stateDir, id).runnerLog)
  try {
    const {script, execArgv} = selfEntry()
    const child = spawn(process.execPath, [...execArgv, script, stateDir, String(id)], {
      detached: true,
      stdio: ['ignore', 'ignore', logFd],
      windowsHide: true,
    })
    child.on('error', () => {})
    child.unref()
  } finally {
    closeSync(logFd)
  }
}
