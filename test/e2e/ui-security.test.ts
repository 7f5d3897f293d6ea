// `drover ui`'s guards, from a real browser where a browser can show them and
// from raw HTTP where only a hostile client would send such a request: the
// token (401 without it), the HttpOnly SameSite=Strict cookie it becomes,
// the Host check against DNS rebinding (403), the CSRF token on POST (403),
// no CORS, a strict CSP, and loopback unless asked otherwise.

import os from 'node:os'
import {describe, expect, it} from 'vitest'
import {drover, fixture, json, makeStateDir} from '../helpers/cli.js'
import {rawRequest, sessionCookie, signedIn, startUi, useBrowser} from '../helpers/ui.js'

const browser = useBrowser()

describe('drover ui: security', () => {
  it('answers 401 without the token, and turns the token into an HttpOnly SameSite=Strict cookie out of the address bar', async () => {
    const ui = await startUi(makeStateDir())
    const context = await browser().newContext()
    const page = await context.newPage()
    expect((await page.goto(ui.base))!.status()).toBe(401)
    expect((await page.goto(`${ui.base}/api/tasks`))!.status()).toBe(401)
    expect((await page.goto(`${ui.base}/?token=wrong-${ui.token}`))!.status()).toBe(401)
    expect((await rawRequest(ui, {path: '/api/tasks', headers: {Cookie: `drover_ui_${ui.port}=nope`}})).status).toBe(401)

    const redirect = await rawRequest(ui, {path: `/?token=${ui.token}`})
    expect(redirect.status).toBe(303)
    expect(redirect.headers.location).toBe('/')
    expect(redirect.headers['set-cookie']).toEqual([`drover_ui_${ui.port}=${ui.token}; HttpOnly; SameSite=Strict; Path=/`])

    expect((await page.goto(ui.url))!.status()).toBe(200)
    expect(page.url()).toBe(`${ui.base}/`)
    // the page's scripts cannot read the session
    expect(await page.evaluate(() => document.cookie)).toBe('')
    await context.close()
  })

  it('answers 403 to a Host that is not the bound address or localhost (DNS rebinding)', async () => {
    const ui = await startUi(makeStateDir())
    const cookie = sessionCookie(ui)
    for (const host of [`evil.example:${ui.port}`, `127.0.0.1.nip.io:${ui.port}`, `localhost.evil.example:${ui.port}`, 'evil.example', `[::2]:${ui.port}`]) {
      const answer = await rawRequest(ui, {path: '/api/tasks', headers: {Host: host, Cookie: cookie}})
      expect([host, answer.status]).toEqual([host, 403])
    }
    // even the token URL: a rebinding page must not get the cookie set
    expect((await rawRequest(ui, {path: `/?token=${ui.token}`, headers: {Host: `evil.example:${ui.port}`}})).status).toBe(403)
    // what is not ours is a plain 404, whatever is asked for
    for (const path of ['/assets/nope.js', '/assets/../index.js', '/api/nope', '/etc/passwd']) {
      expect([path, (await rawRequest(ui, {path, headers: {Cookie: cookie}})).status]).toEqual([path, 404])
    }
    for (const host of [`127.0.0.1:${ui.port}`, `localhost:${ui.port}`, `LOCALHOST:${ui.port}`]) {
      expect((await rawRequest(ui, {path: '/api/tasks', headers: {Host: host, Cookie: cookie}})).status).toBe(200)
    }
  })

  it('answers to a loopback name on any port (an ssh -L forward to another local port), with a cookie of that port; a refusal says how to open it', async () => {
    const ui = await startUi(makeStateDir())
    const forwarded = ui.port === 9999 ? 9998 : 9999
    for (const host of [`localhost:${forwarded}`, `127.0.0.1:${ui.port + 1}`, `[::1]:${forwarded}`, 'localhost', '127.0.0.1']) {
      const redirect = await rawRequest(ui, {path: `/?token=${ui.token}`, headers: {Host: host}})
      expect([host, redirect.status]).toEqual([host, 303])
    }
    // the browser's end of the tunnel names the cookie: a local dashboard on the server's port number keeps its own
    const redirect = await rawRequest(ui, {path: `/?token=${ui.token}`, headers: {Host: `localhost:${forwarded}`}})
    expect(redirect.headers['set-cookie']).toEqual([`drover_ui_${forwarded}=${ui.token}; HttpOnly; SameSite=Strict; Path=/`])
    const read = await rawRequest(ui, {path: '/api/tasks', headers: {Host: `localhost:${forwarded}`, Cookie: `drover_ui_${forwarded}=${ui.token}`}})
    expect(read.status).toBe(200)
    expect(JSON.parse(read.body)).toMatchObject({tasks: []})
    const refused = await rawRequest(ui, {path: '/api/tasks', headers: {Host: `tunnel.example:${forwarded}`, Cookie: sessionCookie(ui)}})
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.body)).toEqual({error: 'wrong Host', hint: expect.stringMatching(/localhost:PORT.*ssh -L.*any local port/)})
  })

  it('bound to every interface (--allow-remote --host 0.0.0.0), answers to the machine’s own addresses and hostname, and still to nothing else', async () => {
    const ui = await startUi(makeStateDir(), ['--allow-remote', '--host', '0.0.0.0'])
    expect(ui.stderr()).toContain('reachable from other machines')
    const cookie = sessionCookie(ui)
    // What a browser on another machine sends: this machine's address on the network, or its name.
    // The request itself goes to 127.0.0.1: the test talks to nothing beyond loopback.
    const own = Object.values(os.networkInterfaces())
      .flatMap((list) => list ?? [])
      .filter((entry) => !entry.internal)
      .map((entry) => (entry.family === 'IPv6' ? `[${entry.address}]` : entry.address))
    const hosts = [...own, os.hostname(), '127.0.0.1', 'localhost'].map((host) => `${host}:${ui.port}`)
    for (const host of hosts) {
      const answer = await rawRequest(ui, {path: '/api/tasks', headers: {Host: host, Cookie: cookie}})
      expect([host, answer.status]).toEqual([host, 200])
    }
    // the token URL too: a remote browser gets its session cookie
    const redirect = await rawRequest(ui, {path: `/?token=${ui.token}`, headers: {Host: hosts[0]}})
    expect(redirect.status).toBe(303)
    expect(redirect.headers['set-cookie']).toEqual([expect.stringMatching(new RegExp(`^drover_ui_${ui.port}=`))])
    const notOurs = ['203.0.113.9', '198.51.100.9'].find((address) => !own.includes(address))
    for (const host of [`evil.example:${ui.port}`, `${os.hostname()}.evil.example:${ui.port}`, `${notOurs}:${ui.port}`, `${hosts[0].replace(/:\d+$/, '')}:${ui.port + 1}`]) {
      const answer = await rawRequest(ui, {path: '/api/tasks', headers: {Host: host, Cookie: cookie}})
      expect([host, answer.status]).toEqual([host, 403])
    }
  })

  it('refuses a POST without the CSRF token (403), takes actions by POST only, sends no CORS headers and a strict CSP', async () => {
    const stateDir = makeStateDir()
    const id = json(await drover(stateDir, ['start', '--json', '--', process.execPath, fixture('sleeper.mjs'), '60'])).id
    const ui = await startUi(stateDir)
    const page = await (await signedIn(browser(), ui)).newPage()
    const response = await page.goto(ui.base)
    const csp = response!.headers()['content-security-policy']
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-inline')
    expect(csp).toContain("frame-ancestors 'none'")

    const tries = await page.evaluate(async (taskId) => {
      const send = async (headers: Record<string, string>, method = 'POST') =>
        (await fetch(`/api/tasks/${taskId}/cancel`, {method, headers: {'Content-Type': 'application/json', ...headers}, body: method === 'POST' ? '{}' : undefined})).status
      return {none: await send({}), wrong: await send({'X-CSRF-Token': 'guess'}), get: await send({}, 'GET'), put: await send({}, 'PUT')}
    }, id)
    expect(tries).toEqual({none: 403, wrong: 403, get: 404, put: 405})
    expect(json(await drover(stateDir, ['status', String(id), '--json'])).status).toBe('running')

    // a cross-site form post carries no CSRF token (and a SameSite=Strict cookie would not even be sent)
    const forged = await rawRequest(ui, {
      path: `/api/tasks/${id}/cancel`,
      method: 'POST',
      headers: {Cookie: sessionCookie(ui), 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://evil.example'},
      body: 'x=1',
    })
    expect(forged.status).toBe(403)
    const read = await rawRequest(ui, {path: '/api/tasks', headers: {Cookie: sessionCookie(ui), Origin: 'http://evil.example'}})
    expect(read.status).toBe(200)
    expect(Object.keys(read.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
  })

  it('binds loopback only unless --allow-remote is given', async () => {
    const refused = await drover(makeStateDir(), ['ui', '--host', '0.0.0.0'])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain('--allow-remote')
    expect(refused.stdout).toBe('')
  })
})
