// `drover mcp`: serves one state dir over MCP on stdin/stdout until the client
// goes away. stdout carries the protocol alone; notes go to stderr. Closing
// stdin ends the server within a second and stops no task: tasks run under
// their own detached runners, so nothing here owns them.

import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js'
import {openStateDir} from '../api/index.js'
import {createServer, type ServerOptions} from './server.js'

/** How long calls in flight (a start_task half done) get to finish once the client is gone. */
const SHUTDOWN_GRACE_MS = 700

export async function serveStdio(options: Omit<ServerOptions, 'version'> & {stateDir?: string; version: string}): Promise<void> {
  const drover = await openStateDir(options.stateDir)
  const {server, close} = createServer(drover, options)
  const transport = new StdioServerTransport()
  let ending = false
  const end = () => {
    if (ending) return
    ending = true
    // Waits in flight are aborted; a start half done gets a moment to write
    // its record. Then exit for sure: no task depends on this process.
    void close(SHUTDOWN_GRACE_MS)
      .then(() => server.close())
      .catch(() => {})
      .finally(() => process.exit(0))
  }
  process.stdin.on('end', end)
  process.stdin.on('close', end)
  process.stdin.on('error', end)
  transport.onclose = end
  await server.connect(transport)
  await new Promise<void>(() => {})
}
