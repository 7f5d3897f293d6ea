// When to colour: an explicit --color or --no-color decides; otherwise only on
// a terminal, and never with NO_COLOR (any non-empty value) or TERM=dumb.
// no-color.org asks exactly this: NO_COLOR sets the default, a flag the user
// typed for this one command overrides it.

const CODES = {red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22]} as const
export type Style = keyof typeof CODES

export function colorEnabled(stream: {isTTY?: boolean}, flag?: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag !== undefined) return flag
  if (env.NO_COLOR) return false
  return Boolean(stream.isTTY) && env.TERM !== 'dumb'
}

export type Paint = (style: Style, text: string) => string

export function painter(enabled: boolean): Paint {
  if (!enabled) return (_style, text) => text
  return (style, text) => `\u001B[${CODES[style][0]}m${text}\u001B[${CODES[style][1]}m`
}

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
