// Slurm gives a job's processes KillWait seconds between its TERM and its
// KILL (scancel, a time limit, preemption). A runner whose graded stop takes
// longer is killed part-way, and Slurm's usual process tracking
// (proctrack/linuxproc or pgid) no longer sees what left the job's tree: a
// TERM-ignoring child whose parent died, a setsid escapee. They outlived the
// job. So a runner learns KillWait once, at its start and off the start's
// path, and fits the stop it makes of the scheduler's TERM into half of it.

import {execFile} from 'node:child_process'

/** The stop's grace when KillWait could not be learnt: short, because the processes left behind are the worse outcome. */
export const UNKNOWN_KILL_WAIT_GRACE_MS = 2000

/** KillWait in ms from `scontrol show config` ("KillWait = 30 sec"), or null. */
export function parseKillWait(config: string): number | null {
  const match = /^KillWait\s*=\s*(\d+)\s*sec/m.exec(config)
  return match ? Number(match[1]) * 1000 : null
}

/** The grace of the stop made of the scheduler's TERM: the usual one, unless half of KillWait is shorter. */
export function engineStopGraceMs(killWaitMs: number | null, usualMs: number): number {
  if (killWaitMs === null) return Math.min(usualMs, UNKNOWN_KILL_WAIT_GRACE_MS)
  return Math.max(0, Math.min(usualMs, Math.floor(killWaitMs / 2)))
}

/** Asks the scheduler for KillWait; null when it cannot say within a few seconds. */
export function learnKillWait(): Promise<number | null> {
  return new Promise((resolve) => {
    const child = execFile('scontrol', ['show', 'config'], {timeout: 10_000, encoding: 'utf8'}, (error, stdout) => resolve(error ? null : parseKillWait(stdout)))
    // a runner whose run ends first does not wait for the answer
    child.unref()
  })
}
