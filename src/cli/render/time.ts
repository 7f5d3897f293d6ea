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
 * shortTime for many cells against one `now`: the zone's offset asked once
 * per quarter hour of UTC, the time of day worked out from the time shifted
 * by it, and a day's date written once for all the cells of that day. A
 * zone's offset changes only at a quarter hour of UTC (offsets are whole
 * quarter hours, changed at whole local hours or half hours), and asking a
 * Date for local fields costs a zone lookup each: six per cell, 100,000 cells.
 */
export class TimeCells {
  private readonly date = new Date(0)
  private readonly today: number
  private quarter = Number.NaN
  private offsetMs = 0
  // the local day last written, and its date as text
  private day = Number.NaN
  private dayText = ''

  constructor(now: Date) {
    this.today = localDay(now.getTime(), -now.getTimezoneOffset() * 60_000)
  }

  short(iso: string): string {
    // Date.parse, not the ISO fields read in JavaScript: a table's 10,000 cells run
    // mostly before V8 optimises, and there the builtin costs a third as much
    const ms = Date.parse(iso)
    if (Number.isNaN(ms)) return iso
    const quarter = Math.floor(ms / QUARTER_HOUR_MS)
    if (quarter !== this.quarter) {
      this.date.setTime(ms)
      this.offsetMs = -this.date.getTimezoneOffset() * 60_000
      this.quarter = quarter
    }
    const local = ms + this.offsetMs
    const day = localDay(ms, this.offsetMs)
    const inDay = local - day * DAY_MS
    const hours = TWO[Math.floor(inDay / 3_600_000)]
    const minutes = TWO[Math.floor(inDay / 60_000) % 60]
    if (day === this.today) return `${hours}:${minutes}:${TWO[Math.floor(inDay / 1000) % 60]}`
    if (day !== this.day) {
      const d = this.date
      d.setTime(day * DAY_MS)
      this.day = day
      this.dayText = `${d.getUTCFullYear()}-${TWO[d.getUTCMonth() + 1]}-${TWO[d.getUTCDate()]}`
    }
    return `${this.dayText} ${hours}:${minutes}`
  }
}

const DAY_MS = 86_400_000
/** The local day of a time (days since 1970-01-01, local), given the zone's offset then. */
const localDay = (ms: number, offsetMs: number) => Math.floor((ms + offsetMs) / DAY_MS)

const QUARTER_HOUR_MS = 15 * 60_000

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
