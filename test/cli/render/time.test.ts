// The one time style of the human views: local time, year-first dates, and the
// age beside it where it helps; never the record's UTC ISO string.

import {describe, expect, it} from 'vitest'
import {localTime, relativeTime, shortTime, TimeCells, timeWithAge} from '../../../src/cli/render/time.js'

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

  // TimeCells asks the zone's offset once a quarter hour and works the fields out itself: it must say
  // what a Date's local fields say, cell after cell across offset changes, in zones of odd offsets too.
  it.each(['America/New_York', 'Europe/Dublin', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns', 'UTC'])('TimeCells in %s: as a Date says, across two years of changes', (zone) => {
    const saved = process.env.TZ
    process.env.TZ = zone
    try {
      const pad = (n: number) => String(n).padStart(2, '0')
      const now = new Date()
      const expected = (ms: number) => {
        const d = new Date(ms)
        const today = d.getDate() === now.getDate() && d.getMonth() === now.getMonth() && d.getFullYear() === now.getFullYear()
        return today ? `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
      }
      const cells = new TimeCells(now)
      const start = Date.parse('2024-01-01T00:00:00Z')
      const times = [
        ...Array.from({length: 40_000}, (_, k) => start + k * 29 * 60_000 + (k % 7) * 1013),
        // cell after cell within the same quarter hours and minutes, as tasks started a minute apart
        ...Array.from({length: 40_000}, (_, k) => start + k * 47_000 + (k % 3) * 7),
        // the same quarter of the hour, cell after cell, an hour and a day apart
        ...Array.from({length: 2000}, (_, k) => start + k * 62 * 60_000),
        ...Array.from({length: 2000}, (_, k) => start + k * (86_400_000 + 60_000)),
        ...Array.from({length: 500}, (_, k) => now.getTime() - k * 173_000),
        ...Array.from({length: 500}, (_, k) => now.getTime() - k * 13_000),
      ]
      const wrong = times.filter((ms) => cells.short(new Date(ms).toISOString()) !== expected(ms))
      expect(wrong.map((ms) => new Date(ms).toISOString()).slice(0, 3)).toEqual([])
      // written otherwise than records write times: the general parser reads it
      expect(cells.short('2024-02-29T12:00:00+01:00')).toBe(expected(Date.parse('2024-02-29T12:00:00+01:00')))
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })

  it('TimeCells in a zone whose offset was then no whole number of quarter hours (Kolkata, 1900: +5:21:10)', () => {
    const saved = process.env.TZ
    process.env.TZ = 'Asia/Kolkata'
    try {
      const pad = (n: number) => String(n).padStart(2, '0')
      const cells = new TimeCells(new Date())
      // whole minutes of UTC: the local seconds (10) never carry into the minute
      const times = Array.from({length: 300}, (_, k) => Date.parse('1900-06-01T12:00:00.000Z') + k * 60_000)
      const wrong = times.filter((ms) => {
        const d = new Date(ms)
        return cells.short(d.toISOString()) !== `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
      })
      expect(wrong.map((ms) => new Date(ms).toISOString()).slice(0, 3)).toEqual([])
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })

  it('leaves what is not a time as it is', () => {
    expect(localTime('soon')).toBe('soon')
    expect(new TimeCells(new Date()).short('soon')).toBe('soon')
    expect(relativeTime('soon')).toBe('')
  })
})
