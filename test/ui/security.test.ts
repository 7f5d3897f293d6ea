import os from 'node:os'
import {describe, expect, it} from 'vitest'
import {allowedHosts, CONTENT_SECURITY_POLICY, cookieName, isLoopback, machineNames, newSecrets, sameSecret, sessionCookie} from '../../src/ui/security.js'

describe('ui security', () => {
  it('answers to the bound address and localhost, with the port, and nothing else', () => {
    expect([...allowedHosts('127.0.0.1', 8377)]).toEqual(['127.0.0.1:8377', 'localhost:8377'])
    expect([...allowedHosts('::1', 8377)]).toEqual(['[::1]:8377', 'localhost:8377'])
    expect(allowedHosts('127.0.0.1', 8377).has('127.0.0.1')).toBe(false)
    // a bind to one address does not ask what the machine is called
    expect([...allowedHosts('192.0.2.7', 8377, () => expect.unreachable())]).toEqual(['192.0.2.7:8377', 'localhost:8377'])
  })

  it('on a wildcard bind also answers to loopback, every address of the machine (IPv6 in brackets) and its hostname, and still nothing else', () => {
    const machine = () => ({addresses: ['127.0.0.1', '::1', '192.0.2.7', 'fd00::7', 'fe80::fc:ff:fe00:1'], hostname: 'Build-Box'})
    for (const bind of ['0.0.0.0', '::']) {
      const allowed = allowedHosts(bind, 8377, machine)
      for (const host of ['localhost:8377', '127.0.0.1:8377', '[::1]:8377', '192.0.2.7:8377', '[fd00::7]:8377', '[fe80::fc:ff:fe00:1]:8377', 'build-box:8377']) {
        expect([bind, host, allowed.has(host)]).toEqual([bind, host, true])
      }
      for (const host of ['evil.example:8377', 'build-box.evil.example:8377', '192.0.2.8:8377', '192.0.2.7:8378', '192.0.2.7', 'fd00::7:8377', '']) {
        expect([bind, host, allowed.has(host)]).toEqual([bind, host, false])
      }
    }
    // the bound wildcard itself, as a local browser sends it
    expect(allowedHosts('0.0.0.0', 8377, machine).has('0.0.0.0:8377')).toBe(true)
    expect(allowedHosts('::', 8377, machine).has('[::]:8377')).toBe(true)
  })

  it("reads the machine's addresses and hostname from the system", () => {
    const names = machineNames()
    expect(names.addresses).toContain('127.0.0.1')
    expect(names.hostname).toBe(os.hostname())
    expect(names.addresses.every((address) => !address.startsWith('['))).toBe(true)
  })

  it('makes fresh, unguessable secrets, and compares them exactly', () => {
    const a = newSecrets()
    const b = newSecrets()
    expect(a.token).not.toBe(b.token)
    expect(a.token).not.toBe(a.csrf)
    expect(a.token.length).toBeGreaterThanOrEqual(32)
    expect(sameSecret(a.token, a.token)).toBe(true)
    expect(sameSecret(a.token.slice(1), a.token)).toBe(false)
    expect(sameSecret(undefined, a.token)).toBe(false)
    expect(sameSecret('', a.token)).toBe(false)
  })

  it('sets a session cookie scripts cannot read and other sites cannot send, one per port', () => {
    expect(sessionCookie(8377, 'abc')).toBe('drover_ui_8377=abc; HttpOnly; SameSite=Strict; Path=/')
    expect(cookieName(1)).not.toBe(cookieName(2))
  })

  it('allows only its own script and style, inline nothing, and no framing', () => {
    expect(CONTENT_SECURITY_POLICY).toMatch(/^default-src 'none'/)
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|\*|https?:/)
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'")
  })

  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(isLoopback(host)).toBe(true)
    for (const host of ['0.0.0.0', '192.168.1.2', '::', 'example.com']) expect(isLoopback(host)).toBe(false)
  })
})
