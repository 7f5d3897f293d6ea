// A floor: what `list --json` cannot avoid at its size — reading every task's
// task.json (readFileSync, JSON.parse) and writing them out as one JSON
// array — with no checks, no reconciling and no CLI around it.
// Usage: node read-records.mjs <state dir>

import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'

const tasks = path.join(process.argv[2], 'tasks')
const records = []
for (const name of readdirSync(tasks)) {
  if (/^\d+$/.test(name)) records.push(JSON.parse(readFileSync(path.join(tasks, name, 'task.json'), 'utf8')))
}
process.stdout.write(JSON.stringify(records) + '\n')
