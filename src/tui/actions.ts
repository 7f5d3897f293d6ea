// The actions at a key: each one call of the API the CLI and the dashboard
// make (a stop from top is the stop `drover stop` makes). They ask and
// return at once (wait: false); what happens next reaches the list through
// the events like any change made from a shell, and the footer says it.

import type {Drover} from '../api/drover.js'
import type {ActionName} from './view.js'
import {mergeSentence} from '../api/merge.js'

export const ACTION_KEYS: Record<string, ActionName> = {s: 'stop', c: 'cancel', d: 'drain', r: 'resume', a: 'again', w: 'wrap-up', m: 'merge', x: 'discard'}

/** Actions done when their call returns: no change of status to wait for (a merge), or no task left to show one (a discard). */
export const DONE_AT_ONCE: ReadonlySet<ActionName> = new Set(['merge', 'discard'])

/** How the question names the action: `stop task 3 (build)`. */
export const ACTION_VERBS: Record<ActionName, string> = {
  stop: 'stop',
  cancel: 'cancel',
  drain: 'drain',
  resume: 'resume',
  again: 'start again',
  'wrap-up': 'wrap up and stop',
  merge: 'merge the branch of',
  discard: 'discard the work (worktree, branch, unmerged commits) and remove',
}

/** What the footer says while the call is out. */
export const ACTION_PROGRESS: Record<ActionName, string> = {
  stop: 'stopping',
  cancel: 'cancelling',
  drain: 'draining',
  resume: 'resuming',
  again: 'starting again',
  'wrap-up': 'asking to wrap up',
  merge: 'merging',
  discard: 'discarding',
}

/** Runs the action; resolves with the line the footer shows (a refusal throws the API's error). */
export async function runAction(drover: Drover, action: ActionName, id: number, message?: string): Promise<string> {
  switch (action) {
    case 'stop':
      return (await drover.stop(id, {wait: false})).message
    case 'wrap-up':
      return (await drover.stop(id, {wait: false, wrapUp: true})).message
    case 'cancel':
      return (await drover.cancel(id, {wait: false})).message
    case 'drain':
      return (await drover.drain(id, {wait: false})).message
    case 'resume': {
      const task = await drover.resume(id, {prompt: message})
      return `task ${task.id} resumed: run ${task.run}, ${task.status}`
    }
    case 'again': {
      const {task} = await drover.startAgain(id)
      return `task ${task.id} started again: run ${task.run}, ${task.status}`
    }
    case 'merge':
      return mergeSentence(await drover.merge(id))
    case 'discard': {
      const result = await drover.rm([id], {discard: true})
      const refused = result.skipped[0]?.reason ?? result.errors[0]?.error
      if (refused) throw new Error(refused)
      const note = result.removed[0]?.worktree?.note
      return `task ${id} removed${note ? `: ${note}` : ''}`
    }
  }
}
