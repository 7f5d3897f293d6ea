// What the views mask: every -e value (names stay), and credentials inside URLs
// wherever they appear in a command line — but nothing that only looks like one.

import {describe, expect, it} from 'vitest'
import {maskUrlCredentials, redactEnv} from '../../src/api/task-json.js'

describe('redactEnv', () => {
  it('masks every value whatever its name, and reveals them all when asked', () => {
    const env = {DB_PASS: 'a', AUTH: 'b', PRIVATE_KEY_PEM: 'c', MODEL: 'fast', EMPTY: ''}
    expect(redactEnv(env)).toEqual({DB_PASS: '***', AUTH: '***', PRIVATE_KEY_PEM: '***', MODEL: '***', EMPTY: '***'})
    expect(redactEnv(env, true)).toEqual(env)
  })
})

describe('maskUrlCredentials', () => {
  it.each([
    ['postgres://u:pw@h/db', 'postgres://u:***@h/db'],
    ['DATABASE_URL=mysql://root:s3cr3t@127.0.0.1:3306/x', 'DATABASE_URL=mysql://root:***@127.0.0.1:3306/x'],
    ['git clone https://ghp_abc123@github.com/o/r.git', 'git clone https://***@github.com/o/r.git'],
    ['https://x-access-token:tok@github.com/o/r', 'https://x-access-token:***@github.com/o/r'],
    ['a redis://:onlypw@cache:6379 b amqp://u:p@q/v', 'a redis://:***@cache:6379 b amqp://u:***@q/v'],
  ])('%s → %s', (text, expected) => {
    expect(maskUrlCredentials(text)).toBe(expected)
  })

  it.each([
    'ssh://git@github.com/o/r.git',
    'http://localhost:8080/path?mail=a@b.c',
    'git@github.com:o/r.git',
    'user@example.com',
    'no url at all',
  ])('leaves %s alone', (text) => {
    expect(maskUrlCredentials(text)).toBe(text)
  })
})
