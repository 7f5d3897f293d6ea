// Running a real agent directly, without drover, to pin down what the agent
// itself does (its flags, hooks, signals): stdin /dev/null as drover gives it,
// stdout parsed as JSON lines, and an optional SIGTERM once a line appears.

import {spawn} from 'node:child_process'

export interface AgentRun {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** The stdout lines that are JSON objects. */
  events: any[]
  ms: number
}

export function runAgent(
  command: string[],
  opts: {env: Record<string, string>; cwd: string; timeoutMs?: number; termWhen?: (line: any) => boolean; termDelayMs?: number},
): Promise<AgentRun> {
  const began = Date.now()
  const child = spawn(command[0], command.slice(1), {cwd: opts.cwd, env: {...process.env, ...opts.env}, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  let pending = ''
  let termSent = false
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    pending += chunk
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      if (termSent || !opts.termWhen) continue
      const event = parseLine(line)
      if (event && opts.termWhen(event)) {
        termSent = true
        setTimeout(() => child.kill('SIGTERM'), opts.termDelayMs ?? 0)
      }
    }
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000)
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer)
      const events = stdout.split('\n').map(parseLine).filter(Boolean)
      resolve({exitCode, signal, stdout, stderr, events, ms: Date.now() - began})
    })
  })
}

function parseLine(line: string): any {
  if (!line.startsWith('{')) return null
  try {
    return JSON.parse(line)
  } catch {
    return null
  }
}
