// The TASK candidates shell completion offers (src/state/ref-candidates.ts),
// for a state dir named the way every command names it. Read-only: a state
// dir that does not exist yet is not created, it just has nothing to offer.

import {resolveStateDir} from '../state/statedir.js'
import {refCandidates, type RefCandidate} from '../state/ref-candidates.js'

export type {RefCandidate} from '../state/ref-candidates.js'
export {formatCandidates} from '../state/ref-candidates.js'

export async function completeTaskRefs(opts: {stateDir?: string; word?: string} = {}): Promise<RefCandidate[]> {
  return refCandidates(await resolveStateDir(opts.stateDir), opts.word ?? '')
}
export {NEWEST_OFFERED} from '../state/ref-candidates.js'
