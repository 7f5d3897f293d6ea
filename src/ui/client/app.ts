// The dashboard page: the list at /, a task at /task/<id>, the queues at /queues.

import {showList} from './list-view.js'
import {showQueues} from './queue-view.js'
import {showTask} from './task-view.js'

const main = document.getElementById('main')!
const task = /^\/task\/(\d+)$/.exec(location.pathname)
if (task) showTask(main, Number(task[1]))
else if (location.pathname === '/queues') showQueues(main)
else showList(main)
document.querySelector(`header nav a[href="${task ? '/' : location.pathname}"]`)?.setAttribute('aria-current', 'page')
