// A moment as people read it where no reader is there to convert it: written
// into a file (the run header of output.log) in the writer's local time, with
// its offset, so `cat`, `tail -f` and `drover logs` show the time of day the
// human views show, and the moment stays exact for a reader in another zone.
// Builtins only: the runner uses it.

const pad = (n: number) => String(n).padStart(2, '0')

/** `2026-12-05 07:39:46 +01:00`: local date and time, 24-hour, and the zone's offset from UTC. */
export function localTimeWithOffset(date: Date): string {
  const offset = -date.getTimezoneOffset()
  const sign = offset < 0 ? '-' : '+'
  const abs = Math.abs(offset)
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
  const clock = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  return `${day} ${clock} ${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}
