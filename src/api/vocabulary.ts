// The closed word lists a front-end validates against and offers to its users
// (statuses, final statuses, agent profiles): the same lists the records use.

export {AGENT_PROFILES, FINAL_STATUSES, TASK_STATUSES} from '../state/record.js'
export type {AgentProfileName} from '../state/record.js'
