// A failed tool call as MCP reports it: a result with isError and the CLI's
// one-line message, with the CLI's exit code (0 ok, 1 failed, 2 usage, 3 no
// such task, 4 conflict, 5 state dir unusable) after it and in `_meta`.

import {DroverError, ExitCode} from '../api/index.js'
import type {ZodError} from 'zod'

export interface ToolErrorResult {
  [key: string]: unknown
  isError: true
  content: {type: 'text'; text: string}[]
  _meta: {exitCode: number}
}

const STATE_DIR_ERRNOS = new Set(['EROFS', 'ENOSPC', 'EDQUOT', 'EACCES', 'EPERM'])

export function toolError(message: string, exitCode: number): ToolErrorResult {
  return {isError: true, content: [{type: 'text', text: `${message} (exit ${exitCode})`}], _meta: {exitCode}}
}

/** The same classification as the CLI's: ours carry their code; a file-system refusal is the state dir's (5); the rest is a bug (1). */
export function errorResult(error: unknown): ToolErrorResult {
  if (error instanceof DroverError) return toolError(error.message, error.exitCode)
  const errno = (error as NodeJS.ErrnoException)?.code
  if (errno !== undefined && STATE_DIR_ERRNOS.has(errno)) {
    return toolError(`state dir unusable: ${(error as Error).message.split('\n')[0]}`, ExitCode.stateDir)
  }
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]
  if (process.env.DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`)
  return toolError(`internal error: ${first}`, ExitCode.failed)
}

/** zod's issues as one line a model can act on: `task: expected …; cursor: …`. */
export function argumentsError(tool: string, error: ZodError): ToolErrorResult {
  const parts = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
    const keys = issue.code === 'unrecognized_keys' ? `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}` : null
    return `${where}${keys ?? issue.message}`
  })
  return toolError(`invalid arguments for ${tool}: ${parts.join('; ')}`, ExitCode.usage)
}
