// `drover ui`: serves the dashboard for one state dir until Ctrl-C. It binds
// loopback unless told otherwise, prints the URL with its token on stdout,
// and leaves every task running when it ends: tasks run under their own
// detached runners, so nothing here owns them.

import {spawn} from 'node:child_process'
import type {AddressInfo} from 'node:net'
import {openStateDir} from '../api/drover.js'
import {usageError} from '../api/values.js'
import {isLoopback, newSecrets} from './security.js'
import {createUiServer} from './server.js'

/** How long open feeds get to end once Ctrl-C is pressed. */
const CLOSE_GRACE_MS = 1000

export interface ServeOptions {
  stateDir?: string
  host: string
  /** 0 for a free port. */
  port: number
  readOnly: boolean
  /** binding a non-loopback address was asked for explicitly. */
  allowRemote: boolean
  open: boolean
  /** print the address as one JSON object instead of the bare URL. */
  json: boolean
}

export async function serveUi(options: ServeOptions): Promise<void> {
  if (!isLoopback(options.host) && !options.allowRemote) {
    throw usageError(`${options.host} is not a loopback address: pass --allow-remote to serve the dashboard beyond this machine`)
  }
  const drover = await openStateDir(options.stateDir)
  const ui = createUiServer(drover, newSecrets(), {readOnly: options.readOnly, host: options.host})
  await new Promise<void>((resolve, reject) => {
    ui.server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? usageError(`port ${options.port} is in use`) : error.code === 'EADDRNOTAVAIL' ? usageError(`cannot bind ${options.host}`) : error),
    )
    ui.server.listen(options.port, options.host, resolve)
  })
  const {port} = ui.server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  const url = `http://${host}:${port}/?token=${ui.secrets.token}`
  if (!isLoopback(options.host)) process.stderr.write(`warning: the dashboard is reachable from other machines on ${options.host}; anyone with the URL controls your tasks\n`)
  process.stdout.write(options.json ? `${JSON.stringify({url, host: options.host, port, readOnly: options.readOnly})}\n` : `${url}\n`)
  process.stderr.write(`drover ui: serving ${drover.stateDir}${options.readOnly ? ' (read-only)' : ''}; Ctrl-C stops the dashboard, not the tasks\n`)
  if (options.open) openBrowser(url)
  await new Promise<void>((resolve) => {
    const end = () => void Promise.race([ui.close(), new Promise((r) => setTimeout(r, CLOSE_GRACE_MS))]).finally(resolve)
    process.once('SIGINT', end)
    process.once('SIGTERM', end)
  })
  // Exit for sure, as the MCP server does: a feed still winding down (a
  // watcher, a read in flight) must not keep the process, and no task
  // depends on it.
  process.exit(0)
}

/** The desktop's own opener; failing to open is not an error (the URL is printed). */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]]
  const child = spawn(command, args as string[], {stdio: 'ignore', detached: true, windowsHide: true})
  child.on('error', () => {})
  child.unref()
}
