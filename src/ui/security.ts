// Who may talk to the dashboard. It runs on a developer's machine next to a
// browser that visits other sites, so every request is checked three ways:
// the Host header (a DNS-rebinding page reaches 127.0.0.1 under its own
// name), the session token (another local user or page cannot guess it), and
// for anything that changes state a CSRF token only our own page knows (a
// cookie alone is sent by any form that posts here). Nothing is CORS-enabled.

import {randomBytes, timingSafeEqual} from 'node:crypto'
import type {ServerResponse} from 'node:http'
import {hostname, networkInterfaces} from 'node:os'

/** What the page may load: only itself, no inline script or style, no frames. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

export interface Secrets {
  /** proves the session: in the printed URL, then in the cookie. */
  token: string
  /** proves a request comes from our page: in the page, sent back as a header on POST. */
  csrf: string
}

export function newSecrets(): Secrets {
  return {token: randomBytes(24).toString('base64url'), csrf: randomBytes(24).toString('base64url')}
}

/**
 * Cookies are per host, not per port: two dashboards on one machine keep a
 * cookie each. Named for the port the browser sees (a tunnel's local end),
 * so a forwarded dashboard and a local one on the same port number do not
 * overwrite each other's.
 */
export const cookieName = (port: number) => `drover_ui_${port}`

export function sessionCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`
}

export function sameSecret(given: string | undefined | null, expected: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** What the machine is called on the network: its interfaces' addresses and its hostname. */
export interface MachineNames {
  addresses: string[]
  hostname: string
}

/** Read again for every request: a laptop's addresses change while a dashboard runs (a new network, a VPN). */
export function machineNames(): MachineNames {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address))
  return {addresses, hostname: hostname()}
}

/** Bound to every interface: a browser elsewhere may reach the dashboard by any of the machine's addresses or its name. */
export const isWildcard = (host: string) => host === '0.0.0.0' || host === '::'

const withPort = (host: string, port: number) => `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`

/**
 * The Host values we answer to, with the port: the address bound and
 * `localhost`; on a wildcard bind also loopback, the machine's own addresses
 * and its hostname, which a browser on another machine sends. Anything else is a
 * name some other site chose for our address (DNS rebinding): the machine's
 * own names are not an attacker's to point elsewhere.
 */
export function allowedHosts(host: string, port: number, machine: () => MachineNames = machineNames): Set<string> {
  const names = [host, 'localhost']
  if (isWildcard(host)) {
    const {addresses, hostname: name} = machine()
    names.push('127.0.0.1', '::1', ...addresses, name)
  }
  return new Set(names.filter(Boolean).map((name) => withPort(name, port).toLowerCase()))
}

/**
 * A Host header that names this machine's loopback — `localhost`,
 * `127.x.y.z` or `[::1]` — with any port or none. A browser sending it is on
 * the machine that answers to that name, so it is not a page some other
 * site's DNS pointed here: a forward to another local port (`ssh -L
 * 9000:127.0.0.1:8377`) arrives with the browser's port, not ours.
 */
export function isLoopbackHostHeader(header: string): boolean {
  const match = /^(\[::1\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(header)
  if (!match) return false
  const name = match[1].toLowerCase()
  return (name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) && (match[2] === undefined || Number(match[2]) <= 65_535)
}

/** Whether a request's Host is one we answer to: a loopback name with any port, or allowedHosts. */
export function hostAllowed(header: string | undefined, host: string, port: number, machine: () => MachineNames = machineNames): boolean {
  const given = (header ?? '').toLowerCase()
  return isLoopbackHostHeader(given) || allowedHosts(host, port, machine).has(given)
}

/** The port a browser put in the Host header (what it connected to, a tunnel's end), or null. */
export function browserPort(header: string | undefined): number | null {
  const port = /:(\d{1,5})$/.exec(header ?? '')?.[1]
  return port === undefined ? null : Number(port)
}

/** What a refused Host is told: how to reach the dashboard instead. */
export const WRONG_HOST_HINT =
  'open the dashboard as http://127.0.0.1:PORT/ or http://localhost:PORT/ (through an ssh -L tunnel, any local port); another name may be a DNS-rebinding page and is refused'

/** Headers every answer carries. */
export function setCommonHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY)
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'no-referrer')
  res.setHeader('X-Frame-Options', 'DENY')
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin')
  res.setHeader('Cache-Control', 'no-store')
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i

export const isLoopback = (host: string) => LOOPBACK.test(host)
