// `attach`: a person takes an agent over on their terminal, in its own
// conversation. A run at work is drained first (at a safe point, as `drain`
// does); then a new run — recorded as attached — is the agent's interactive
// mode on the same session, run by this process in the foreground: it is the
// run's runner (runner.json names it, requests reach it, settle records its
// end). Ctrl-C and a closed terminal end the interactive session only; the
// task then waits, resumable, for `drover resume` to send it back.

import {conflictError, DroverError, ExitCode, usageError} from '../base/errors.js'
import {interactiveCommand} from '../agents/profiles.js'
import {profileOf} from '../agents/registry.js'
import {resumeRefusal} from '../agents/resumable.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {readRecord} from '../state/store.js'
import {requestControl, scheduleMs} from './control.js'
import {startNewRun} from './launch.js'
import {runnerEntry} from '../runner/local-executor.js'
import {reconcile} from './reconcile.js'
import {learnAgentFlags} from './resume.js'

export interface AttachSteps {
  /** `drain` of the graded stop a run at work is given first (defaults: drain's). */
  graceMs?: number
  killAfterMs?: number
  /** told when a run at work is being drained, and when the interactive session starts (its argv). */
  onDraining?: (record: TaskRecord) => void
  onOpening?: (record: TaskRecord, argv: string[]) => void
}

/** Resolves with the record once the interactive session has ended and its run is recorded. */
export async function attachTask(stateDir: string, start: TaskRecord, steps: AttachSteps = {}): Promise<TaskRecord> {
  if (!profileOf(start.agent)) {
    throw usageError(`task ${start.id} runs no agent drover knows (${start.agent}), so there is no interactive session to open; drover logs -f ${start.id} follows its output`)
  }
  let record = await reconcile(stateDir, start)
  if (record.status === 'queued') throw conflictError(`task ${record.id} is queued: nothing of it runs yet to take over (drover start ${record.id} … or wait for its turn)`, {id: record.id, status: record.status})
  if (!isFinalStatus(record.status) && record.status !== 'waiting') record = await drainFirst(stateDir, record, steps)
  // The grammar before any lock: `--help` of a cold agent binary can take a second.
  const flags = learnAgentFlags(stateDir, record)
  let argv: string[] = []
  const opened = await startNewRun(stateDir, record.id, {
    resumed: true,
    runHere: true,
    prepare(current) {
      const refusal = resumeRefusal(current)
      if (refusal) throw conflictError(refusal.replace('cannot be resumed', 'cannot be attached'), {id: current.id, status: current.status})
      const command = flags ? interactiveCommand(current, flags) : null
      if (!command) throw conflictError(`task ${current.id} has no session to open`, {id: current.id})
      argv = command
      return {command, about: {attached: true}}
    },
  })
  steps.onOpening?.(opened, argv)
  const {Runner} = await import('../runner/runner.js')
  // This process is the CLI: the hooks' supervisors are the built runner's to run.
  const runner = new Runner({stateDir, id: opened.id, terminal: true, entry: runnerEntry()})
  // The terminal's Ctrl-C and hang-up reach the whole foreground group: the
  // session decides what they do to it, and its runner lives on to record the end.
  const ignore = () => {}
  const interrupted = (signal: NodeJS.Signals) => void runner.interrupted(signal)
  process.on('SIGINT', ignore)
  process.on('SIGHUP', ignore)
  process.on('SIGTERM', interrupted)
  try {
    await runner.main()
  } catch (error) {
    runner.fail(error)
    throw error
  } finally {
    process.off('SIGINT', ignore)
    process.off('SIGHUP', ignore)
    process.off('SIGTERM', interrupted)
  }
  const read = readRecord(stateDir, opened.id)
  if (!read.ok) throw new DroverError(`task ${opened.id}: ${read.error}`, ExitCode.failed)
  return read.record
}

/** A run at work, drained at its next safe point; refused when it has not stopped within the drain's schedule. */
async function drainFirst(stateDir: string, record: TaskRecord, steps: AttachSteps): Promise<TaskRecord> {
  steps.onDraining?.(record)
  const request = {kind: 'drain' as const, graceMs: steps.graceMs ?? 60_000, killAfterMs: steps.killAfterMs ?? 10_000}
  await requestControl(stateDir, record, request, {wait: true, timeoutMs: scheduleMs(request) + 5000})
  const read = readRecord(stateDir, record.id)
  if (!read.ok) throw new DroverError(`task ${record.id}: ${read.error}`, ExitCode.failed)
  if (!isFinalStatus(read.record.status)) throw conflictError(`task ${record.id} did not stop in time to be attached (still ${read.record.status})`, {id: record.id, status: read.record.status})
  return read.record
}
