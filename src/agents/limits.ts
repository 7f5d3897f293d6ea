// When a provider's usage or rate limit lifts, from the words an agent
// printed: an epoch, seconds from now, or a wall-clock time in a named zone.
// Recognising the limit itself is each agent's profile's (src/agents/<agent>.ts):
// only the agents' own error events are read, never the model's text — an
// agent writing code about rate limits is not limited.

export type {UsageLimit} from './profile.js'

/** When the text says the limit lifts: an epoch, seconds from now, or a time of day (in a named zone). */
export function resetFromText(text: string, now = Date.now()): number | null {
  const epoch = /limit reached\|(\d{9,})\b/.exec(text) ?? /"resets_at"\s*:\s*(\d{9,})/.exec(text)
  if (epoch) return Number(epoch[1]) * 1000
  const inSeconds = /"resets_in_seconds"\s*:\s*(\d+)/.exec(text)
  if (inSeconds) return now + Number(inSeconds[1]) * 1000
  // Google's APIs (gemini): "Please retry in 12.5s.", RetryInfo's "retryDelay": "12s";
  // OpenAI's (qwen, copilot, opencode on OpenAI-compatible providers): "Please try again in 20s." / "in 6ms".
  const retryIn = /(?:retry|try again) in (\d+(?:\.\d+)?)\s*(ms|s|m)\b/i.exec(text) ?? /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)(s)"/.exec(text)
  if (retryIn) return now + Math.ceil(Number(retryIn[1]) * {ms: 1, s: 1000, m: 60_000}[retryIn[2].toLowerCase() as 'ms' | 's' | 'm'])
  // an ISO time: "Your quota will reset at 2026-12-02T07:03:12Z."
  const isoAt = /resets?(?: at)? (\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d))/i.exec(text)
  if (isoAt) return Date.parse(isoAt[1])
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
