// Fixtures move records through statuses the way drover does: transition() for
// the moves that carry a run on, settledRecord() for an ending, with the cause
// a drover of before causes would be given for the same reason (the codec's
// migration), so a fixture's `{status: 'failed', reason: 'timeout'}` ends as a
// real timeout would.

import {legacyCause} from '../../src/state/record-codec.js'
import {isEndingStatus, settledRecord, transition, type EndCause, type Outcome, type TaskRecord} from '../../src/state/record.js'

export function moveTo(record: TaskRecord, outcome: Outcome & {cause?: EndCause}): TaskRecord {
  if (!isEndingStatus(outcome.status)) return transition(record, outcome)
  const reason = outcome.reason ?? record.reason ?? outcome.status
  const cause =
    outcome.cause ??
    legacyCause({status: outcome.status, reason, exitCode: outcome.exitCode ?? record.exitCode, signal: outcome.signal ?? record.signal}) ??
    'exit'
  return settledRecord(record, {...outcome, status: outcome.status, cause, reason})
}
