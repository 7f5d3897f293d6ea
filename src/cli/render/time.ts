// The one time style of the human views: local time, 24-hour, dates written
// year first; relative ("5m ago") beside it where a person asks "how long
// ago?" (status). JSON always carries the ISO UTC strings of the record.

const pad = (n: number) => String(n).padStart(2, '0')
const dateOf = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
const clockOf = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`

/** For table cells: the time of day for today, else the date and minute. */
export function shortTime(iso: string, now = new Date()): string {
  return new TimeCells(now).short(iso)
}

// '00' to '99': a table of 100,000 rows writes half a million of them.
const TWO = Array.from({length: 100}, (_, n) => pad(n))

/**
 * shortTime for many cells against one `now`. A zone's offset is a whole
 * number of quarter hours and changes only at a quarter hour of UTC (at whole
 * local hours or half hours), so within one quarter hour of UTC the local
 * date and hour stand still and the local minute is the UTC one shifted by a
 * constant: what a quarter's cells share is worked out once, from a Date
 * (asking it for local fields costs a zone lookup each: six per cell, 100,000
 * cells), and each cell takes its minute and second from its own text. A
 * minute's cell is kept for the next cell of that minute.
 */
export class TimeCells {
  private readonly date = new Date(0)
  private readonly today: number
  // the quarter hour of UTC last seen (QUARTER_KEY of its text), and what its cells share
  private quarter = Number.NaN
  private quarterOk = false
  private isToday = false
  // "2026-12-03 14:" before today, "14:" today; the local minute of the quarter's first
  private prefix = ''
  private minuteBase = 0
  // the cell of each minute of the quarter written so far (before today: the whole cell; today: all but the seconds)
  private minutes: string[] = []
  // the local day last written, and its date as text
  private day = Number.NaN
  private dayText = ''

  constructor(now: Date) {
    this.today = localDay(now.getTime(), -now.getTimezoneOffset() * 60_000)
  }

  short(iso: string): string {
    if (!ISO_SHAPE.test(iso)) return this.anyShort(iso)
    const minute = two(iso, 14)
    const key = quarterKey(iso, minute)
    if (key !== this.quarter) this.enterQuarter(iso, key, minute)
    if (!this.quarterOk) return this.anyShort(iso)
    const at = minute % 15
    const cell = this.minutes[at] ?? (this.minutes[at] = `${this.prefix}${TWO[this.minuteBase + at]}${this.isToday ? ':' : ''}`)
    return this.isToday ? cell + iso.slice(17, 19) : cell
  }

  /** What the cells of the quarter hour `iso` falls in share. */
  private enterQuarter(iso: string, key: number, minute: number): void {
    this.quarter = key
    this.minutes = []
    const ms = Date.UTC(two(iso, 0) * 100 + two(iso, 2), two(iso, 5) - 1, two(iso, 8), two(iso, 11), minute - (minute % 15))
    this.date.setTime(ms)
    const offsetMs = -this.date.getTimezoneOffset() * 60_000
    // a zone's offset before standard time (local mean time) need not be whole quarters: each cell is worked out alone
    this.quarterOk = offsetMs % QUARTER_HOUR_MS === 0
    if (!this.quarterOk) return
    const day = localDay(ms, offsetMs)
    const inDay = ms + offsetMs - day * DAY_MS
    this.isToday = day === this.today
    this.minuteBase = Math.floor(inDay / 60_000) % 60
    const hour = `${TWO[Math.floor(inDay / 3_600_000)]}:`
    this.prefix = this.isToday ? hour : `${this.dayOf(day)} ${hour}`
  }

  /** Any time Date.parse reads, each cell worked out alone. */
  private anyShort(iso: string): string {
    const ms = Date.parse(iso)
    if (Number.isNaN(ms)) return iso
    this.date.setTime(ms)
    const offsetMs = -this.date.getTimezoneOffset() * 60_000
    const day = localDay(ms, offsetMs)
    const inDay = ms + offsetMs - day * DAY_MS
    const hours = TWO[Math.floor(inDay / 3_600_000)]
    const minutes = TWO[Math.floor(inDay / 60_000) % 60]
    if (day === this.today) return `${hours}:${minutes}:${TWO[Math.floor(inDay / 1000) % 60]}`
    return `${this.dayOf(day)} ${hours}:${minutes}`
  }

  /** A local day's date as text, the last one kept. */
  private dayOf(day: number): string {
    if (day !== this.day) {
      const d = this.date
      d.setTime(day * DAY_MS)
      this.day = day
      this.dayText = `${d.getUTCFullYear()}-${TWO[d.getUTCMonth() + 1]}-${TWO[d.getUTCDate()]}`
    }
    return this.dayText
  }
}

const DAY_MS = 86_400_000
/** The local day of a time (days since 1970-01-01, local), given the zone's offset then. */
const localDay = (ms: number, offsetMs: number) => Math.floor((ms + offsetMs) / DAY_MS)

const QUARTER_HOUR_MS = 15 * 60_000

// The one form records hold, `2026-12-03T11:22:42.123Z`, read digit by digit
// (the general parser took a third of a cell's time). Days 29–31 and any other
// text go to Date.parse, which knows the months' lengths.
const ISO_SHAPE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/
const two = (s: string, at: number) => (s.charCodeAt(at) - 48) * 10 + s.charCodeAt(at + 1) - 48

/** A number that tells the quarter hours of UTC of ISO_SHAPE's texts apart (not a time: months of 31 days). */
const quarterKey = (iso: string, minute: number) =>
  ((((two(iso, 0) * 100 + two(iso, 2)) * 12 + two(iso, 5)) * 31 + two(iso, 8)) * 24 + two(iso, 11)) * 4 + Math.floor(minute / 15)

/** "2025-06-01 14:03:07", local. */
export function localTime(iso: string): string {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : `${dateOf(d)} ${clockOf(d)}`
}

/** "just now", "42s ago", "5m ago", "3h ago", "12d ago" (or "in …" for a clock skewed ahead). */
export function relativeTime(iso: string, now = Date.now()): string {
  const ms = now - Date.parse(iso)
  if (Number.isNaN(ms)) return ''
  const s = Math.round(Math.abs(ms) / 1000)
  if (s < 2) return 'just now'
  const amount = s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m` : s < 86_400 ? `${Math.floor(s / 3600)}h` : `${Math.floor(s / 86_400)}d`
  return ms >= 0 ? `${amount} ago` : `in ${amount}`
}

/** "2025-06-01 14:03:07 (5m ago)": the full local time with how long ago it was. */
export function timeWithAge(iso: string, now = Date.now()): string {
  const age = relativeTime(iso, now)
  return age ? `${localTime(iso)} (${age})` : localTime(iso)
}

const ISO_IN_TEXT = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)\b/g

/** A sentence of the record (a reason) with every ISO time in it written as localTime: the views show one style of time. */
export const localTimesIn = (text: string): string => text.replace(ISO_IN_TEXT, (iso) => localTime(iso))
