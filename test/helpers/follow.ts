// Plumbing for the following tests (`logs -f`, `start --follow`): the CLI run
// with stdout kept byte for byte, a follower whose output can be read while it
// runs, and a worker driven step by step.

import {execa, type Options, type ResultPromise} from 'execa'
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {expect} from 'vitest'

import {BIN, fixture, readTask, waitFor, type CliResult} from './cli.js'

const node = process.execPath
const FINAL = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']

const running: ResultPromise[] = []

/** SIGKILLs every drover process the test started (not its tasks: cleanupStateDirs does that). */
export function killFollowers(): void {
  for (const child of running.splice(0)) child.kill('SIGKILL')
}

/** Runs the CLI keeping stdout byte for byte (execa would strip a final newline). */
export function spawnDrover(stateDir: string, args: string[], opts: Pick<Options, 'stdout'> = {}): ResultPromise {
  const child = execa(node, [BIN, ...args], {
    env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1'},
    reject: false,
    stripFinalNewline: false,
    timeout: 90_000,
    stdin: 'ignore',
    buffer: true,
    ...opts,
  })
  running.push(child)
  return child
}

export async function drover(stateDir: string, args: string[]): Promise<CliResult> {
  const result = await spawnDrover(stateDir, args)
  return {stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? -1}
}

/** A follower whose output so far can be read while it runs. */
export function follow(stateDir: string, args: string[]) {
  const child = spawnDrover(stateDir, args)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  return {child, stdout: () => stdout, stderr: () => stderr}
}

export async function startOk(stateDir: string, args: string[]): Promise<number> {
  const result = await drover(stateDir, ['start', ...args])
  expect(result.exitCode, result.stderr).toBe(0)
  return Number(result.stdout)
}

/** A worker driven step by step (see core-steps.mjs); each step returns once the worker has done it. */
export function gated(stateDir: string) {
  const dir = path.join(stateDir, 'gate')
  mkdirSync(dir, {recursive: true})
  let step = 0
  return {
    command: ['--', node, fixture('core-steps.mjs'), dir],
    next: async (order: {write?: string; exit?: number; signal?: string}) => {
      const n = ++step
      writeFileSync(path.join(dir, String(n)), JSON.stringify(order))
      if (order.exit === undefined && !order.signal) {
        await waitFor(() => existsSync(path.join(dir, `${n}.done`)), {message: `worker step ${n}`})
      }
    },
  }
}

export const waitFinal = (stateDir: string, id: number) =>
  waitFor(() => FINAL.includes(readTask(stateDir, id).status) && readTask(stateDir, id), {timeout: 20_000, message: `task ${id} to end`})

/** Parses an NDJSON stream, failing the test with the whole text when a line is not JSON. */
export function ndjson(text: string): any[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines.map((line) => {
    try {
      return JSON.parse(line)
    } catch {
      throw new Error(`not NDJSON: ${JSON.stringify(line)} in:\n${text}`)
    }
  })
}
