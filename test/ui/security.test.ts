import {describe, expect, it} from 'vitest'
import {allowedHosts, CONTENT_SECURITY_POLICY, cookieName, isLoopback, newSecrets, sameSecret, sessionCookie} from '../../src/ui/security.js'

describe('ui security', () => {
  it('answers to the bound address and localhost, with the port, and nothing else', () => {
    expect([...allowedHosts('127.0.0.1', 8377)]).toEqual(['127.0.0.1:8377', 'localhost:8377'])
    expect([...allowedHosts('::1', 8377)]).toEqual(['[::1]:8377', 'localhost:8377'])
    expect(allowedHosts('127.0.0.1', 8377).has('127.0.0.1')).toBe(false)
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
