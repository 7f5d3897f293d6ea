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

/** shortTime for many cells against one `now`: one Date reused, today's date looked up once. */
export class TimeCells {
  private readonly date = new Date(0)
  private readonly today: [number, number, number]

  constructor(now: Date) {
    this.today = [now.getDate(), now.getMonth(), now.getFullYear()]
  }

  short(iso: string): string {
    const ms = Date.parse(iso)
    if (Number.isNaN(ms)) return iso
    const d = this.date
    d.setTime(ms)
    const day = d.getDate()
    const month = d.getMonth()
    const year = d.getFullYear()
    const hours = TWO[d.getHours()]
    const minutes = TWO[d.getMinutes()]
    if (day === this.today[0] && month === this.today[1] && year === this.today[2]) return `${hours}:${minutes}:${TWO[d.getSeconds()]}`
    return `${year}-${TWO[month + 1]}-${TWO[day]} ${hours}:${minutes}`
  }
}

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
