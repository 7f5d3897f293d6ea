// The one time style of the human views: local time, year-first dates, and the
// age beside it where it helps; never the record's UTC ISO string.

import {describe, expect, it} from 'vitest'
import {localTime, relativeTime, shortTime, timeWithAge} from '../../../src/cli/render/time.js'

const local = (y: number, mo: number, d: number, h: number, mi: number, s: number) => new Date(y, mo - 1, d, h, mi, s)

describe('time', () => {
  it('shortTime: the clock for today, the date and minute before', () => {
    const now = local(2025, 6, 1, 15, 0, 0)
    expect(shortTime(local(2025, 6, 1, 9, 5, 7).toISOString(), now)).toBe('09:05:07')
    expect(shortTime(local(2025, 5, 31, 23, 59, 59).toISOString(), now)).toBe('2025-05-31 23:59')
  })

  it('localTime and timeWithAge: local, with how long ago', () => {
    const at = local(2025, 6, 1, 14, 3, 7)
    expect(localTime(at.toISOString())).toBe('2025-06-01 14:03:07')
    expect(timeWithAge(at.toISOString(), at.getTime() + 5 * 60_000)).toBe('2025-06-01 14:03:07 (5m ago)')
  })

  it.each([
    [0, 'just now'],
    [42_000, '42s ago'],
    [3 * 3_600_000 + 5, '3h ago'],
    [12 * 86_400_000, '12d ago'],
    [-90_000, 'in 1m'],
  ])('relativeTime %i ms → %s', (ms, text) => {
    const now = Date.parse('2025-06-01T12:00:00Z')
    expect(relativeTime(new Date(now - ms).toISOString(), now)).toBe(text)
  })

  it('leaves what is not a time as it is', () => {
    expect(localTime('soon')).toBe('soon')
    expect(relativeTime('soon')).toBe('')
  })
})
