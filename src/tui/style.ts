// Colour for the screen, or none: with colour off (NO_COLOR, --no-color,
// TERM=dumb) every painter returns the text as it is, and only the selection
// keeps reverse video — a cursor, not a colour, as monochrome terminal UIs
// show theirs.

const CODES = {red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22]} as const
export type Style = keyof typeof CODES
export type Paint = (style: Style, text: string) => string

export function painter(enabled: boolean): Paint {
  if (!enabled) return (_style, text) => text
  return (style, text) => (text === '' ? text : `\u001B[${CODES[style][0]}m${text}\u001B[${CODES[style][1]}m`)
}

/** The selected row: reverse video over the whole line (its own colours reset first so they do not fight it). */
export const reverse = (line: string) => `\u001B[7m${line.replace(/\u001B\[[0-9;]*m/g, '')}\u001B[27m`

export function statusStyle(status: string): Style | null {
  switch (status) {
    case 'running':
    case 'starting':
    case 'queued':
      return 'cyan'
    case 'succeeded':
      return 'green'
    case 'failed':
    case 'lost':
    case 'corrupt':
      return 'red'
    case 'stopping':
    case 'waiting':
    case 'stopped':
    case 'drained':
    case 'cancelled':
    case 'skipped':
      return 'yellow'
    default:
      return null
  }
}
