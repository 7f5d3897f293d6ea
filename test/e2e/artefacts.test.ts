// Every file and folder drover leaves in a state dir is named in
// docs/architecture.md. The doc's tables are the single source: this test
// reads their path patterns (`index/seg-<seq>`, `tasks/<id>/.reserve`),
// drives the real CLI through every feature that writes to the state dir —
// queues, a worktree, exit and status hooks, a notification to a webhook, a
// fake claude drained and resumed, a retry,
// `--after`, prune, a config.json, the derived index, a name
// lookup, doctor — and fails on any name it finds that no row matches. The
// state dir is walked while tasks run as well as at the end, so the files of
// live runs (runner.json, .reserve, queue entries) are checked too.

import {chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, readTask, ROOT, waitFor} from '../helpers/cli.js'
import {cleanupRepos, makeRepo} from '../helpers/git.js'

const homes: string[] = []
const servers: http.Server[] = []

afterEach(() => {
  for (const server of servers.splice(0)) server.close()
  cleanupStateDirs()
  cleanupRepos()
  for (const dir of homes.splice(0)) rmSync(dir, {recursive: true, force: true})
})

interface Row {
  /** the pattern as the doc writes it, from the state dir */
  pattern: string
  regex: RegExp
}

const PLACEHOLDERS: Record<string, string> = {id: '[1-9][0-9]*', seq: '[0-9]{12}', run: '[1-9][0-9]*'}

/** A doc pattern as a regex over a path from the state dir; folders end in `/`. */
function patternRegex(pattern: string): RegExp {
  let rest = pattern
  let head = '^'
  if (rest.startsWith('…/')) {
    head = '^(?:.*/)?' // in any folder
    rest = rest.slice(2)
  }
  let tail = '$'
  if (rest.endsWith('/…')) {
    tail = '(?:.*)$' // the folder and anything in it
    rest = rest.slice(0, -1)
  }
  const body = rest
    .split(/(<[a-z]+>)/)
    .map((part) => {
      const placeholder = /^<([a-z]+)>$/.exec(part)
      if (placeholder) return PLACEHOLDERS[placeholder[1]] ?? '[^/]+'
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('')
  return new RegExp(head + body + tail)
}

/** The rows of the doc's tables of files: a header `| path (from BASE) |`, then one row per pattern. */
function documentedPatterns(doc: string): Row[] {
  const rows: Row[] = []
  let base: string | null = null
  for (const line of doc.split('\n')) {
    const header = /^\| path \(from (.+?)\) \|/.exec(line)
    if (header) {
      base = header[1] === 'the state dir' ? '' : header[1]
      if (base !== '') rows.push({pattern: base, regex: patternRegex(base)}) // the folder the table is about
      continue
    }
    if (base === null) continue
    if (!line.startsWith('|')) {
      base = null
      continue
    }
    const cell = /^\| `([^`]+)` \|/.exec(line)
    if (cell) rows.push({pattern: base + cell[1], regex: patternRegex(base + cell[1])})
  }
  return rows
}

/** Every file and folder under `dir`, as paths from it (`/` separated, folders ending in `/`). */
function walk(dir: string, prefix = ''): string[] {
  const found: string[] = []
  for (const entry of readdirSync(path.join(dir, prefix), {withFileTypes: true})) {
    const rel = prefix + entry.name
    if (entry.isDirectory()) {
      found.push(rel + '/')
      found.push(...walk(dir, rel + '/'))
    } else {
      found.push(rel)
    }
  }
  return found
}

const doc = () => readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8')

describe('the artefacts of a state dir', () => {
  it("reads the doc's tables into patterns", () => {
    const rows = documentedPatterns(doc())
    const match = (p: string) => rows.filter((row) => row.regex.test(p)).map((row) => row.pattern)
    expect(rows.length).toBeGreaterThan(40)
    expect(match('index/seg-000000000003')).toEqual(['index/seg-<seq>'])
    expect(match('tasks/12/')).toEqual(['tasks/<id>/'])
    expect(match('tasks/12/.hooks-fired-2')).toEqual(['tasks/<id>/.hooks-fired-<run>'])
    expect(match('tasks/12/session/anything/in/it')).toEqual(['tasks/<id>/session/…'])
    expect(match('queues/q/.q.json.1-a-1.tmp')).toContain('…/.<file>.<unique>.tmp')
    expect(match('tasks/12/unknown')).toEqual([])
    expect(match('index/seg-3')).toEqual([])
  })

  it('names every file and folder drover leaves, with every feature used', async () => {
    const rows = documentedPatterns(doc())
    const dir = makeStateDir()
    const seen = new Set<string>()
    const look = () => {
      for (const rel of walk(dir)) seen.add(rel)
    }

    const home = mkdtempSync(path.join(os.tmpdir(), 'drover-home-'))
    homes.push(home)
    const env = {PATH: `${fixture('bin')}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'}
    const run = async (args: string[], opts: {cwd?: string; env?: Record<string, string>} = {}) => {
      const r = await drover(dir, args, {env: {...env, ...opts.env}, cwd: opts.cwd})
      expect(r.exitCode, `drover ${args.join(' ')}: ${r.stderr}`).toBe(0)
      return r
    }
    const start = async (args: string[], opts: {cwd?: string} = {}) => Number((await run(['start', ...args], opts)).stdout.trim())
    const final = (id: number) =>
      waitFor(() => ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost', 'skipped'].includes(readTask(dir, id).status), {
        timeout: 30_000,
        message: `task ${id} to end`,
      })

    // Slurm settings for new tasks (no cluster: the executor stays local), and the state dir's exit hook.
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({executor: 'local', slurm: {partition: 'gpu', time: '10:00'}}))
    mkdirSync(path.join(dir, 'hooks'))
    writeFileSync(path.join(dir, 'hooks', 'on-exit'), '#!/bin/sh\ncat > /dev/null\necho "shared hook $DROVER_TASK_ID"\n')
    chmodSync(path.join(dir, 'hooks', 'on-exit'), 0o755)
    // …and its status hook, which every task's changes are told to.
    writeFileSync(path.join(dir, 'hooks', 'on-status'), '#!/bin/sh\ncat > /dev/null\necho "$DROVER_TASK_ID $DROVER_STATUS"\n')
    chmodSync(path.join(dir, 'hooks', 'on-status'), 0o755)

    // A queue of one: one task holds the slot, one waits; a dependency waits in @after.
    await run(['queue', 'set', 'q', '--parallel', '1'])
    const holder = await start(['--queue', 'q', '--name', 'holder', '--', 'sleep', '30'])
    const waiter = await start(['--queue', 'q', '--', 'true'])
    const dependent = await start(['--after', String(holder), '--', 'true'])
    // A worktree of a real repository.
    const repo = makeRepo()
    const inWorktree = await start(['--worktree', '--name', 'wt', '--shell', 'echo two >> a.txt'], {cwd: repo})
    // A task's own exit hook and a webhook told of its end, on a failing run; a retried run; a dependency that fails (skipped).
    let posts = 0
    const webhook = http.createServer((req, res) => {
      posts++
      req.resume().on('end', () => res.writeHead(200).end())
    })
    servers.push(webhook)
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve))
    const hookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`
    const hooked = await start(['--on-exit', 'echo own hook', '--notify', hookUrl, '--', 'sh', '-c', 'exit 3'])
    const retried = await start(['--retry', '1', '--retry-delay', '1s', '--', 'sh', '-c', 'exit 1'])
    const skipped = await start(['--after', String(hooked), '--', 'true'])
    // An agent: the fake claude, working until drained.
    const agent = await start(['--name', 'agent', '--', 'claude', '-p', 'count', '--output-format', 'stream-json', '--verbose'])
    await waitFor(() => readTask(dir, agent).agentInfo?.sessionId, {timeout: 30_000, message: 'the agent to be working'})
    // a follow-up for after the drain and the resume below (kept: the drain leaves it queued)
    await run(['resume', String(agent), '--prompt', 'later', '--keep'])
    expect(readTask(dir, waiter).status).toBe('queued')
    expect(readTask(dir, dependent).status).toBe('queued')
    look()

    expect(json(await run(['drain', String(agent), '--json'])).results[0]).toMatchObject({status: 'drained'})
    await run(['stop', String(holder)])
    for (const id of [waiter, dependent, inWorktree, hooked, skipped]) await final(id)
    await waitFor(() => readTask(dir, retried).runs.length === 2 && readTask(dir, retried).status === 'failed', {timeout: 30_000, message: 'the retry to end'})
    expect(readTask(dir, skipped).status).toBe('skipped')
    await waitFor(() => posts === 1, {timeout: 30_000, message: 'the webhook to be told of the end'})
    look()

    // resume learns claude's grammar from its --help (cache/), and runs a short session.
    await run(['resume', String(agent), '--prompt', 'finish'], {env: {FAKE_AGENT_TURNS: '2'}})
    await final(agent)
    // prune removes some ended tasks (last-id, trash on the way).
    await run(['prune', '--status', 'succeeded', '--keep', '2'])
    // The default list folds the ended tasks into the index; then, with tasks/ still for
    // over 2 s, a listing is kept (index/listing, index/journal) and a start is journalled.
    await run(['list'])
    await new Promise((resolve) => setTimeout(resolve, 2500))
    await run(['list'])
    await final(await start(['--name', 'late', '--', 'true']))
    await run(['status', 'agent']) // a name lookup: the names column
    await run(['list', '--all']) // the rows column
    await run(['list', '--json'])
    await run(['doctor'])
    look()

    const unnamed = [...seen].filter((rel) => !rows.some((row) => row.regex.test(rel))).sort()
    expect(unnamed, 'files and folders drover left that docs/architecture.md does not name').toEqual([])

    // The walk saw what the scenario was for: a test that saw none of these could not fail.
    const matched = new Set([...seen].flatMap((rel) => rows.filter((row) => row.regex.test(rel)).map((row) => row.pattern)))
    for (const pattern of [
      'config.json',
      'last-id',
      'live/<id>',
      'index/seg-<seq>',
      'index/listing',
      'index/journal',
      'cache/agent-flags-<key>.json',
      'hooks/on-status',
      'tasks/<id>/status-changes.ndjson',
      'tasks/<id>/.status-hooks-done',
      'queues/<name>.json',
      'queues/<name>/waiting/<key>',
      'queues/<name>/active/<id>',
      'hooks/on-exit',
      'worktrees/<id>-<name>/…',
      'tasks/<id>/task.json',
      'tasks/<id>/runner.json',
      'tasks/<id>/tree.json',
      'tasks/<id>/claude-settings.json',
      'tasks/<id>/hooks.log',
      'tasks/<id>/.hooks-fired-<run>',
      'tasks/<id>/.reserve',
      'tasks/<id>/followups/<n>.json',
      'tasks/<id>/followups/last',
    ])
      expect(matched, pattern).toContain(pattern)
  })
})
