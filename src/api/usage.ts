// An agent task's usage turn by turn (see tasks/usage-series.ts): the shape
// the API returns for it.

export type {UsagePoint} from '../tasks/usage-series.js'
