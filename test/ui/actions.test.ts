import {describe, expect, it} from 'vitest'
import {startOptionsOf} from '../../src/ui/actions.js'

describe("the dashboard's start form", () => {
  it('takes a shell script, or argv one argument per line, with the optional fields', () => {
    expect(startOptionsOf({command: 'make test'})).toEqual({shell: 'make test'})
    expect(startOptionsOf({mode: 'argv', command: 'claude\r\n-p\n\nfix the tests\n', name: 'fix', cwd: '/', agent: 'claude', timeout: '2h'})).toEqual({
      command: ['claude', '-p', 'fix the tests'],
      name: 'fix',
      cwd: '/',
      agent: 'claude',
      timeoutMs: 7_200_000,
    })
    // empty fields are left out, not passed as ''
    expect(startOptionsOf({command: 'ls', name: '', cwd: ' ', agent: '', timeout: ''})).toEqual({shell: 'ls'})
  })

  it('refuses what is not a form value, with exit 2 or a 400', () => {
    expect(() => startOptionsOf({command: 'ls', agent: 'gpt'})).toThrow(/unknown agent profile: gpt/)
    expect(() => startOptionsOf({command: 'ls', timeout: '7'})).toThrow()
    expect(() => startOptionsOf({command: ['ls']})).toThrow(/command must be a string/)
  })
})
