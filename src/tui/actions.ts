// The actions at a key: each one call of the API the CLI and the dashboard
// make (a stop from top is the stop `drover stop` makes). They ask and
// return at once (wait: false); what happens next reaches the list through
// the events like any change made from a shell, and the footer says it.

import type {Drover} from '../api/drover.js'
import type {ActionName} from './view.js'
import {mergeSentence} from '../api/merge.js'

export const ACTION_KEYS: Record<string, ActionName> = {s: 'stop', c: 'cancel', d: 'drain', r: 'resume', a: 'again', w: 'wrap-up', f: 'followup', F: 'followup-now', t: 'attach', m: 'merge', x: 'discard'}

/** The actions that take a message first: resume's may be empty (its default), a follow-up's may not. */
export const MESSAGE_ACTIONS: ReadonlySet<ActionName> = new Set(['resume', 'followup', 'followup-now'])

/**
 * Actions done when their call returns: no change of status to wait for (a
 * merge; a follow-up, whose run comes when the one at work ends), or no task
 * left to show one (a discard).
 */
export const DONE_AT_ONCE: ReadonlySet<ActionName> = new Set(['merge', 'discard', 'followup', 'followup-now'])

/** How the question names the action: `stop task 3 (build)`. */
export const ACTION_VERBS: Record<ActionName, string> = {
  stop: 'stop',
  cancel: 'cancel',
  drain: 'drain',
  resume: 'resume',
  again: 'start again',
  'wrap-up': 'wrap up and stop',
  followup: 'send a follow-up to',
  'followup-now': 'send a follow-up now (drained at a safe point) to',
  attach: 'take over in this terminal',
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
  followup: 'sending a follow-up to',
  'followup-now': 'sending a follow-up now to',
  attach: 'draining, to take over',
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
    case 'followup':
    case 'followup-now': {
      const sent = await drover.followUp(id, {prompt: message ?? '', now: action === 'followup-now', wait: false})
      if (!sent.queued) return `task ${sent.id} resumed with it: run ${sent.task.run}, ${sent.task.status}`
      return `task ${sent.id}: follow-up ${sent.queued.n} queued${sent.queued.now ? ', the run draining for it' : ` for when run ${sent.task.run} ends`}`
    }
    case 'attach':
      throw new Error('attach takes the terminal: top runs it itself')
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
