// The TASK candidates shell completion offers (src/state/ref-candidates.ts),
// for a state dir named the way every command names it. Read-only: a state
// dir that does not exist yet is not created, it just has nothing to offer;
// one a newer drover wrote is refused (exit 5) as every command refuses it.

import {readStateFormat, resolveStateDir} from '../state/statedir.js'
import {refCandidates, type RefCandidate} from '../tasks/ref-candidates.js'

export type {RefCandidate} from '../tasks/ref-candidates.js'
export {formatCandidates} from '../tasks/ref-candidates.js'

export async function completeTaskRefs(opts: {stateDir?: string; word?: string} = {}): Promise<RefCandidate[]> {
  const stateDir = await resolveStateDir(opts.stateDir)
  readStateFormat(stateDir)
  return refCandidates(stateDir, opts.word ?? '')
}
export {NEWEST_OFFERED} from '../tasks/ref-candidates.js'
