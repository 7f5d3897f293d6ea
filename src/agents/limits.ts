// Recognising a provider's usage or rate limit in an agent's events, and when
// it resets. Only the agents' own error events are read (claude's
// rate_limit_event and error results, codex's error and turn.failed), never
// the model's text: an agent writing code about rate limits is not limited.
// The message formats are the ones the agents print; the tests cite where each
// was reported.

export interface UsageLimit {
  /** the agent's own words (one line). */
  message: string
  /** when the limit lifts (ISO), when the message says; else null. */
  resetAt: string | null
}

const obj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null)
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300)
const iso = (ms: number | null) => (ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString())

// claude: "Claude AI usage limit reached|1755615600" (older), "You've hit your
// limit · resets 2pm (Asia/Shanghai)", "You've hit your session limit · resets
// 3:50pm (Asia/Tokyo)", "Claude usage limit reached. Your limit will reset at
// 5pm (Europe/Warsaw)."; API errors 429 rate_limit_error, 529 overloaded_error.
const CLAUDE_LIMIT = /usage limit reached|hit your (?:\w+ )?limit|rate_limit_error|overloaded_error|\b429\b|\b529\b|rate limit/i
// codex: "You've hit your usage limit. … try again at 2:51 PM.", the API's
// usage_limit_reached with resets_at / resets_in_seconds, "exceeded retry
// limit, last status: 429 Too Many Requests".
const CODEX_LIMIT = /usage limit|usage_limit_reached|rate limit|rate_limit|429 Too Many Requests|quota/i

/** The limit an agent event reports, or null. */
export function usageLimitOf(profile: 'claude' | 'codex', type: string, event: Record<string, unknown>, now = Date.now()): UsageLimit | null {
  if (profile === 'claude') {
    if (type === 'rate_limit_event') {
      const info = obj(event.rate_limit_info)
      if (info?.status !== 'rejected') return null
      const resets = typeof info.resetsAt === 'number' ? info.resetsAt * 1000 : null
      return {message: `${str(info.rateLimitType) ?? 'usage'} limit reached`, resetAt: iso(resets)}
    }
    if (type !== 'result' || (event.is_error !== true && str(event.subtype) === 'success')) return null
    const errors = Array.isArray(event.errors) ? event.errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('; ') : ''
    const text = `${str(event.result) ?? ''} ${errors}`.trim()
    // claude 2.1 also says it in fields: api_error_status 429 (529 overloaded), api_error_type rate_limit_error.
    const structured = event.api_error_status === 429 || event.api_error_status === 529 || /rate_limit|overloaded/.test(str(event.api_error_type) ?? '')
    if (!structured && !CLAUDE_LIMIT.test(text)) return null
    return {message: oneLine(text.replace(/\|\d{9,}\b/, '')), resetAt: iso(resetFromText(text, now))}
  }
  if (type !== 'error' && type !== 'turn.failed') return null
  const text = type === 'error' ? (str(event.message) ?? '') : (str(obj(event.error)?.message) ?? '')
  if (!CODEX_LIMIT.test(text)) return null
  return {message: oneLine(text), resetAt: iso(resetFromText(text, now))}
}

/** When the text says the limit lifts: an epoch, seconds from now, or a time of day (in a named zone). */
export function resetFromText(text: string, now = Date.now()): number | null {
  const epoch = /limit reached\|(\d{9,})\b/.exec(text) ?? /"resets_at"\s*:\s*(\d{9,})/.exec(text)
  if (epoch) return Number(epoch[1]) * 1000
  const inSeconds = /"resets_in_seconds"\s*:\s*(\d+)/.exec(text)
  if (inSeconds) return now + Number(inSeconds[1]) * 1000
  const claude = /resets?(?: at)? ((?:[A-Z][a-z]{2} \d{1,2}, )?\d{1,2}(?::\d{2})?\s*[ap]m)(?: \(([\w/+-]+)\))?/i.exec(text)
  if (claude) return nextWallTime(claude[1], claude[2] ?? null, now)
  const codex = /try again at ((?:[A-Z][a-z]{2,8} \d{1,2}(?:st|nd|rd|th)?, \d{4},? )?\d{1,2}:\d{2}\s*[AP]M)/i.exec(text)
  if (codex) return nextWallTime(codex[1], null, now)
  return null
}

/**
 * The next moment at or after `now` that a wall clock in `zone` (the local
 * zone when null) shows `when`: "2pm", "3:50pm", "Feb 7, 11am", "Apr 28th,
 * 2026 10:03 PM". null when it cannot be read.
 */
export function nextWallTime(when: string, zone: string | null, now = Date.now()): number | null {
  const m = /^(?:([A-Z][a-z]{2})[a-z]* (\d{1,2})(?:st|nd|rd|th)?,(?: (\d{4}),?)? )?(\d{1,2})(?::(\d{2}))?\s*([ap]m)$/i.exec(when.trim())
  if (!m) return null
  const [, monthName, day, year, h, min, ampm] = m
  const hour = (Number(h) % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0)
  const month = monthName ? MONTHS.indexOf(monthName.slice(0, 3).toLowerCase()) : -1
  if (monthName && month < 0) return null
  const today = wallParts(now, zone)
  if (!today) return null
  const at = (y: number, mo: number, d: number) => fromWall(y, mo, d, hour, Number(min ?? 0), zone)
  if (month >= 0) {
    const y = year ? Number(year) : today.year
    const first = at(y, month, Number(day))
    return first !== null && first < now - 60_000 && !year ? at(y + 1, month, Number(day)) : first
  }
  const first = at(today.year, today.month, today.day)
  return first !== null && first < now - 60_000 ? at(today.year, today.month, today.day + 1) : first
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

function wallParts(ms: number, zone: string | null): {year: number; month: number; day: number; hour: number; minute: number} | null {
  if (zone === null) {
    const d = new Date(ms)
    return {year: d.getFullYear(), month: d.getMonth(), day: d.getDate(), hour: d.getHours(), minute: d.getMinutes()}
  }
  try {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric'})
        .formatToParts(ms)
        .map((p) => [p.type, Number(p.value)]),
    )
    return {year: parts.year, month: parts.month - 1, day: parts.day, hour: parts.hour, minute: parts.minute}
  } catch {
    return null // a zone this Node does not know
  }
}

// The instant a wall clock in `zone` shows this time: guess it as UTC, then
// correct by the zone's offset at the guess (twice, for a change of offset between).
function fromWall(year: number, month: number, day: number, hour: number, minute: number, zone: string | null): number | null {
  if (zone === null) return new Date(year, month, day, hour, minute).getTime()
  const wanted = Date.UTC(year, month, day, hour, minute)
  let guess = wanted
  for (let i = 0; i < 2; i++) {
    const shown = wallParts(guess, zone)
    if (!shown) return null
    guess += wanted - Date.UTC(shown.year, shown.month, shown.day, shown.hour, shown.minute)
  }
  return guess
}
