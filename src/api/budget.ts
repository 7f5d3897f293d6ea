// Budgets as front-ends take them from people: an amount of dollars parsed and
// a budget checked against the agent that must report it (agents/budget.ts).

export {checkBudget, givenLimits, parseCost, type Budget} from '../agents/budget.js'
