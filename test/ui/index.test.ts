import {describe, expect, it} from 'vitest'
import {remoteWarning} from '../../src/ui/index.js'

// The e2e tests bind loopback only (no test may listen beyond this machine),
// so the warning for a remote --host is checked here.
describe('drover ui: binding beyond loopback', () => {
  it('warns on any address other machines can reach, and says what the URL gives them', () => {
    expect(remoteWarning('0.0.0.0', false)).toBe('warning: the dashboard is reachable from other machines on 0.0.0.0; anyone with the URL controls your tasks')
    expect(remoteWarning('192.168.1.20', true)).toBe('warning: the dashboard is reachable from other machines on 192.168.1.20; anyone with the URL sees your tasks')
    expect(remoteWarning('::', false)).toMatch(/^warning: .* on ::;/)
  })

  it('says nothing on loopback', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) expect(remoteWarning(host, false)).toBeNull()
  })
})
