// Provider usage and rate limits recognised in the agents' own events, with
// the reset time when the message names one. The fixtures are the formats
// the real agents print, each cited in test/fixtures/limits/README.md.

import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {nextWallTime, resetFromText} from '../../src/agents/limits.js'
import {usageLimitOf} from '../../src/agents/registry.js'
import {AgentEventReader} from '../../src/agents/events.js'
import {fixture} from '../helpers/cli.js'

const events = (name: string) =>
  readFileSync(fixture(`limits/${name}.ndjson`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

// 2026-04-28 12:00 UTC: a fixed "now" for times of day.
const NOW = Date.UTC(2026, 3, 28, 12, 0)

describe('claude', () => {
  it('the rejected rate_limit_event and the error results; an allowed event and a successful result are no limit', () => {
    const seen = events('claude').map((e) => usageLimitOf('claude', e.type as string, e, NOW))
    expect(seen[0]).toBeNull()
    expect(seen[1]).toEqual({message: 'five_hour limit reached', resetAt: new Date(1778565600 * 1000).toISOString()})
    // 2pm in Shanghai (UTC+8) is 06:00 UTC: passed on the 28th at noon UTC, so the 29th
    expect(seen[2]).toEqual({message: "You've hit your limit · resets 2pm (Asia/Shanghai)", resetAt: '2026-04-29T06:00:00.000Z'})
    expect(seen[3]).toEqual({message: 'Claude AI usage limit reached', resetAt: new Date(1755615600 * 1000).toISOString()})
    // 3:50pm in Tokyo (UTC+9) is 06:50 UTC
    expect(seen[4]?.resetAt).toBe('2026-04-29T06:50:00.000Z')
    expect(seen[5]).toMatchObject({message: expect.stringContaining('rate_limit_error'), resetAt: null})
    expect(seen[6]).toEqual({message: "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.", resetAt: null})
    expect(seen[7]).toBeNull()
  })

  it('the event reader keeps the limit in what the runner records', () => {
    const reader = new AgentEventReader('claude', null, null)
    for (const e of events('claude').slice(0, 2)) reader.fold(JSON.stringify(e))
    expect(reader.current().limit).toEqual({message: 'five_hour limit reached', resetAt: new Date(1778565600 * 1000).toISOString()})
  })
})

describe('codex', () => {
  it('error and turn.failed messages with their reset times; other failures are no limit', () => {
    const seen = events('codex').map((e) => usageLimitOf('codex', e.type as string, e, NOW))
    expect(seen[0]?.resetAt).toBe(new Date(2026, 3, 28, 22, 3).toISOString())
    expect(seen[1]?.message).toMatch(/^You've hit your usage limit\. Upgrade to Pro/)
    const twoFiftyOne = new Date(NOW)
    twoFiftyOne.setHours(14, 51, 0, 0)
    if (twoFiftyOne.getTime() < NOW - 60_000) twoFiftyOne.setDate(twoFiftyOne.getDate() + 1)
    expect(seen[1]?.resetAt).toBe(twoFiftyOne.toISOString())
    expect(seen[2]?.resetAt).toBe(new Date(1777936568 * 1000).toISOString())
    expect(seen[3]).toEqual({message: 'exceeded retry limit, last status: 429 Too Many Requests', resetAt: null})
    expect(seen[4]).toBeNull()
    const sixFortyEight = new Date(NOW)
    sixFortyEight.setHours(6, 48, 0, 0)
    if (sixFortyEight.getTime() < NOW - 60_000) sixFortyEight.setDate(sixFortyEight.getDate() + 1)
    expect(seen[5]).toMatchObject({message: expect.stringMatching(/^You’ve hit your usage limit/), resetAt: sixFortyEight.toISOString()})
  })
})

describe('reset times', () => {
  it('seconds from now, a date in a zone, a zone this Node does not know', () => {
    expect(resetFromText('{"resets_in_seconds":60}', NOW)).toBe(NOW + 60_000)
    expect(nextWallTime('Feb 7, 11am', 'Asia/Seoul', NOW)).toBe(Date.UTC(2027, 1, 7, 2, 0))
    expect(nextWallTime('10pm', 'America/New_York', NOW)).toBe(Date.UTC(2026, 3, 29, 2, 0))
    expect(nextWallTime('10pm', 'Not/AZone', NOW)).toBeNull()
    expect(nextWallTime('noon', null, NOW)).toBeNull()
  })
})
