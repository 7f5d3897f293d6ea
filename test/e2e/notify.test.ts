// Notifications end to end: `start --notify URL` posts a small JSON event to
// a real HTTP server on 127.0.0.1 when the task ends or needs a person
// (waiting on a usage limit), tried again after a 503 and not after a 404;
// config.json's `notify` is the default and `--notify none` silences it; a
// webhook's path (its secret) never shows in a view. `--notify desktop` runs
// notify-send: a stand-in on PATH shows the argv, and Debian's real one is
// watched delivering to a notification server on a private D-Bus.

import {execFileSync, spawn, type ChildProcess} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, makeTempDir, readTask, startOk, taskEvents, waitFor} from '../helpers/cli.js'

vi.setConfig({testTimeout: 120_000})

const servers: http.Server[] = []
const processes: ChildProcess[] = []
afterEach(() => {
  cleanupStateDirs()
  for (const server of servers.splice(0)) server.close()
  for (const child of processes.splice(0)) child.kill('SIGKILL')
})

interface Received {
  path: string
  body: any
  headers: http.IncomingHttpHeaders
}

/** A webhook on 127.0.0.1 that answers each post with the next of `answers` (the last one from then on). */
async function webhook(answers: number[]): Promise<{url: string; received: Received[]; answered: number[]}> {
  const received: Received[] = []
  const answered: number[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const code = answers[Math.min(answered.length, answers.length - 1)]
      answered.push(code)
      if (code === 200) received.push({path: req.url ?? '', body: JSON.parse(body), headers: req.headers})
      res.writeHead(code).end()
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, answered}
}

/** Resolves at the child's first line on stdout (it is ready); fails if it exits first. */
const ready = (child: ChildProcess, what: string) =>
  new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`${what} exited ${code}`)))
  })

const hookEvents = (dir: string, id: number) => taskEvents(dir, id).filter((e) => e.event === 'hook' || e.event === 'hook-failed')

/**
 * Waits until the task's status-hook supervisor is done: every change told and
 * its lock let go. A test that ended at the post would otherwise remove the
 * state dir while the supervisor still writes its event and offset there.
 */
const supervisorDone = (dir: string, id: number) => {
  const task = path.join(dir, 'tasks', String(id))
  return waitFor(
    () => {
      const done = existsSync(path.join(task, '.status-hooks-done')) ? Number(readFileSync(path.join(task, '.status-hooks-done'), 'utf8')) : -1
      return done === statSync(path.join(task, 'status-changes.ndjson')).size && !readdirSync(task).some((name) => name.startsWith('.status-hooks.lock'))
    },
    {timeout: 30_000, message: 'the status-hook supervisor to be done'},
  )
}

describe('--notify URL', () => {
  it('posts the end as JSON, tried again after a 503; the secret path shows nowhere', async () => {
    const dir = makeStateDir()
    const hook = await webhook([503, 200])
    const id = await startOk(dir, ['--name', 'build', '--notify', `${hook.url}/services/T0/B0/secret`, '--', 'sh', '-c', 'exit 3'])
    await waitFor(() => hook.received.length === 1, {timeout: 30_000, message: 'the post'})
    expect(hook.answered).toEqual([503, 200])
    const {body, path: posted, headers} = hook.received[0]
    expect(posted).toBe('/services/T0/B0/secret')
    expect(headers['content-type']).toBe('application/json')
    expect(body).toMatchObject({source: 'drover', kind: 'ended', id, name: 'build', status: 'failed', previous: 'running', cause: 'exit', reason: 'exit 3', exitCode: 3, run: 1})
    expect(body.text).toBe(`drover: task ${id} (build) failed: exit 3`)
    // only the end is told: not queued, starting nor running
    await waitFor(() => hookEvents(dir, id).length === 1)
    expect(hookEvents(dir, id)[0]).toMatchObject({event: 'hook', hook: `notify ${hook.url}/…`, status: 'failed', attempts: 2, httpStatus: 200})
    const detail = json(await drover(dir, ['status', String(id), '--json']))
    expect(detail.notify).toEqual([`${hook.url}/…`])
    expect(JSON.stringify(json(await drover(dir, ['list', '--json'])))).not.toContain('secret')
    expect(json(await drover(dir, ['status', String(id), '--json', '--show-env'])).notify).toEqual([`${hook.url}/services/T0/B0/secret`])
  })

  it('a refusal (404) is not tried again, and status shows it', async () => {
    const dir = makeStateDir()
    const hook = await webhook([404])
    const id = await startOk(dir, ['--notify', `${hook.url}/gone`, '--', 'true'])
    await waitFor(() => hookEvents(dir, id).length === 1, {timeout: 30_000, message: 'the failed post'})
    expect(hook.answered).toEqual([404])
    expect(json(await drover(dir, ['status', String(id), '--json'])).hookFailures).toEqual([
      {run: 1, hook: `notify ${hook.url}/…`, status: 'succeeded', reason: 'HTTP 404', exitCode: null, signal: null},
    ])
    expect((await drover(dir, ['status', String(id)])).stdout).toMatch(new RegExp(`hook failed +notify ${hook.url.replace(/[.]/g, '\\.')}/… \\(run 1, at succeeded\\): HTTP 404\\n`))
  })

  it('tells of a wait on a usage limit as needing attention', async () => {
    const dir = makeStateDir()
    const hook = await webhook([200])
    const bin = makeTempDir('drover-bin-')
    writeFileSync(path.join(bin, 'claude'), `#!/usr/bin/env node\nimport(${JSON.stringify(fixture('agent-claude.mjs'))})\n`, {mode: 0o755})
    const limit = path.join(makeTempDir('drover-limit-'), 'limit')
    writeFileSync(limit, String(Math.floor(Date.now() / 1000) + 3600))
    const env = {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: makeTempDir('drover-home-'), FAKE_AGENT_TURN_MS: '50', FAKE_AGENT_TURNS: '2', FAKE_CLAUDE_LIMIT_FILE: limit}
    const r = await drover(dir, ['start', '--on-limit', 'wait', '--notify', hook.url, '--', 'claude', '-p', 'count', '--output-format', 'stream-json', '--verbose'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const id = Number(r.stdout)
    await waitFor(() => hook.received.length === 1, {timeout: 30_000, message: 'the waiting post'})
    expect(hook.received[0].body).toMatchObject({kind: 'attention', status: 'waiting', cause: 'usage-limit'})
    expect((await drover(dir, ['cancel', String(id)], {env})).exitCode).toBe(0)
    await waitFor(() => hook.received.length === 2, {timeout: 30_000, message: 'the end'})
    expect(hook.received[1].body).toMatchObject({kind: 'ended', status: 'cancelled', previous: 'waiting'})
    await supervisorDone(dir, id)
  })

  it("config.json's notify is the default; --notify none silences it; a bad target is refused with nothing written", async () => {
    const dir = makeStateDir()
    const hook = await webhook([200])
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({notify: [hook.url + '/cfg']}))
    const told = await startOk(dir, ['--', 'true'])
    await waitFor(() => hook.received.length === 1, {timeout: 30_000, message: 'the default target'})
    expect(hook.received[0]).toMatchObject({path: '/cfg', body: {id: told}})
    const quiet = await startOk(dir, ['--notify', 'none', '--', 'true'])
    await waitFor(() => readTask(dir, quiet).status === 'succeeded')
    expect(readTask(dir, quiet).notify).toBeUndefined()
    expect(existsSync(path.join(dir, 'tasks', String(quiet), 'status-changes.ndjson'))).toBe(false)

    for (const bad of ['ftp://example.invalid/x', 'nowhere']) {
      const r = await drover(dir, ['start', '--notify', bad, '--', 'true'])
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toMatch(/--notify takes an http\(s\) URL or "desktop"/)
    }
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({notify: ['mailto:me']}))
    const r = await drover(dir, ['start', '--', 'true'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/config\.json: notify: takes an http\(s\) URL or "desktop", not a mailto: URL/)
    expect(existsSync(path.join(dir, 'tasks', String(quiet + 1)))).toBe(false)
  })
})

describe('--notify desktop', () => {
  it('runs notify-send with the title and the line, the text never in a script', async () => {
    const dir = makeStateDir()
    const bin = makeTempDir('drover-bin-')
    const seen = path.join(bin, 'seen.json')
    writeFileSync(path.join(bin, 'notify-send'), `#!/usr/bin/env node\nrequire('fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(process.argv.slice(2)))\n`, {mode: 0o755})
    const env = {PATH: `${bin}${path.delimiter}${process.env.PATH}`}
    const r = await drover(dir, ['start', '--name', 'x', '--notify', 'desktop', '--', 'sh', '-c', 'exit 2'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    await waitFor(() => existsSync(seen), {timeout: 30_000, message: 'notify-send ran'})
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual(['--app-name=drover', '--', 'drover: failed', `task ${r.stdout.trim()} (x) failed: exit 2`])
    await supervisorDone(dir, Number(r.stdout))
  })

  // Debian's notify-send (libnotify-bin) speaks D-Bus to org.freedesktop.Notifications:
  // a private session bus and a small server (python3-dbus) stand in for a desktop's.
  const realNotifySend = ['command -v notify-send', 'command -v dbus-daemon', "/usr/bin/python3 -c 'import dbus, gi'"].every((check) => {
    try {
      execFileSync('sh', ['-c', check], {stdio: 'ignore'})
      return true
    } catch {
      return false
    }
  })
  it.runIf(realNotifySend)("Debian's notify-send delivers to the session's notification server", async () => {
    const dir = makeStateDir()
    const tmp = makeTempDir('drover-bus-')
    const socket = path.join(tmp, 'bus')
    const config = path.join(tmp, 'bus.conf')
    writeFileSync(
      config,
      `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=${socket}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`,
    )
    const daemon = spawn('dbus-daemon', ['--config-file', config, '--nofork', '--print-address'], {stdio: ['ignore', 'pipe', 'ignore']})
    processes.push(daemon)
    await ready(daemon, 'the bus')
    const bus = {DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}`}
    const got = path.join(tmp, 'got.ndjson')
    const server = spawn('/usr/bin/python3', [fixture('notify-server.py'), got], {env: {...process.env, ...bus}, stdio: ['ignore', 'pipe', 'inherit']})
    processes.push(server)
    await ready(server, 'the notification server')
    const r = await drover(dir, ['start', '--notify', 'desktop', '--', 'true'], {env: bus})
    expect(r.exitCode, r.stderr).toBe(0)
    await waitFor(() => existsSync(got), {timeout: 30_000, message: 'the notification'})
    expect(JSON.parse(readFileSync(got, 'utf8'))).toEqual({app: 'drover', summary: 'drover: succeeded', body: `task ${r.stdout.trim()} succeeded: exit 0`})
    await waitFor(() => hookEvents(dir, Number(r.stdout)).length === 1)
    expect(hookEvents(dir, Number(r.stdout))[0]).toMatchObject({event: 'hook', hook: 'notify desktop', exitCode: 0})
    await supervisorDone(dir, Number(r.stdout))
  })
})
