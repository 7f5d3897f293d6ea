// What both modes of the dashboard bench share (ui.mjs): a `drover ui` on a
// fresh state dir, the paced writers it follows, and CPU time from /proc.

import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {BIN, LIB, drover, envFor, kill, waitFor} from './util.mjs'

const CLK_TCK = 100
export const KIB_PER_SECOND = 1024

/** CPU seconds (user + system) of one process, with its reaped children's when `children`; 0 once it is gone. */
export function cpuSeconds(pid, {children = false} = {}) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const own = Number(fields[11]) + Number(fields[12])
    return (children ? own + Number(fields[13]) + Number(fields[14]) : own) / CLK_TCK
  } catch {
    return 0
  }
}

/** A `drover ui` on a fresh state dir (or `stateDir`): its pid, the printed URL, the session cookie a client sends. */
export async function startDashboard(ctx, prefix, stateDir = ctx.dirs.fresh(prefix)) {
  const server = spawn(process.execPath, [BIN, 'ui'], {env: envFor(stateDir), stdio: ['ignore', 'pipe', 'pipe']})
  let printed = ''
  server.stdout.on('data', (data) => (printed += data))
  try {
    const url = new URL(await waitFor(() => /^(http:\/\/\S+)\n/.exec(printed)?.[1], {timeout: 20_000, message: "drover ui's URL"}))
    return {stateDir, pid: server.pid, url, cookie: `drover_ui_${url.port}=${url.searchParams.get('token')}`, stop: () => kill(server.pid, 'SIGINT')}
  } catch (error) {
    kill(server.pid, 'SIGINT')
    throw error
  }
}

/**
 * Starts the writers one after another (a few hundred ms each: the first
 * have a head start), or, given a go file, all waiting silent until it
 * exists.
 */
export function startWriters(stateDir, tasks, seconds, goFile) {
  const ids = []
  for (let i = 0; i < tasks; i++) {
    const argv = [process.execPath, path.join(LIB, 'paced-writer.mjs'), String(seconds), String(KIB_PER_SECOND), ...(goFile ? [goFile] : [])]
    const started = drover(stateDir, ['start', '--json', '--', ...argv])
    ids.push(JSON.parse(started.stdout).id)
  }
  return ids
}

export const outputLog = (stateDir, id) => readFileSync(path.join(stateDir, 'tasks', String(id), 'output.log'))
