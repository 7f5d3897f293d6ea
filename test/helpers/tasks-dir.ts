// tasks/ made to look long unchanged: its modification time a minute back, so
// a listing of it counts as made well after its last change (the listings of
// index-listing.ts, a watch's passes).

import {utimesSync} from 'node:fs'
import {tasksDir} from '../../src/state/store.js'

export function ageTasksDir(stateDir: string): void {
  const past = new Date(Date.now() - 60_000)
  utimesSync(tasksDir(stateDir), past, past)
}
