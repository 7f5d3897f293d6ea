// A floor: what a read of every task that shows what each task.json says
// cannot avoid while the index may not hide a record changed by hand — one
// stat of every task.json (decision 0044) — with no CLI, no index and no
// output around it.
// Usage: node stat-records.mjs <state dir>

import {readdirSync, statSync} from 'node:fs'
import path from 'node:path'

const tasks = path.join(process.argv[2], 'tasks')
let stated = 0
for (const name of readdirSync(tasks)) {
  if (/^\d+$/.test(name) && statSync(path.join(tasks, name, 'task.json'), {throwIfNoEntry: false})) stated++
}
if (stated === 0) throw new Error(`no task.json under ${tasks}`)
