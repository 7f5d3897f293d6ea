// The dashboard page: the list at /, a task at /task/<id>.

import {showList} from './list-view.js'
import {showTask} from './task-view.js'

const main = document.getElementById('main')!
const task = /^\/task\/(\d+)$/.exec(location.pathname)
if (task) showTask(main, Number(task[1]))
else showList(main)
