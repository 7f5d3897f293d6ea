// How the terminal front-ends (the CLI's tables and logs, `top`) colour
// text: ANSI SGR pairs for a few styles, and the colour of each status — in
// one place, so `list` and `top` paint a status alike. Whether to colour at
// all is each front-end's call (--color, NO_COLOR, a terminal or not).

const CODES = {red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22]} as const
export type Style = keyof typeof CODES

export type Paint = (style: Style, text: string) => string

/** Paints with ANSI codes, or returns the text as it is when colour is off. */
export function painter(enabled: boolean): Paint {
  if (!enabled) return (_style, text) => text
  return (style, text) => `\u001B[${CODES[style][0]}m${text}\u001B[${CODES[style][1]}m`
}

/** The colour of a status word: live cyan, succeeded green, failures red, the rest of the ends yellow. */
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
