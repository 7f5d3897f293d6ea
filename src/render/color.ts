// When to colour: only on a terminal, never with NO_COLOR (any non-empty
// value, per no-color.org), --no-color or TERM=dumb; --color forces it on.

const CODES = {red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22]} as const
export type Style = keyof typeof CODES

export function colorEnabled(stream: {isTTY?: boolean}, flag?: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag === false) return false
  if (env.NO_COLOR) return false
  if (flag === true) return true
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
      return 'cyan'
    case 'succeeded':
      return 'green'
    case 'failed':
    case 'lost':
    case 'corrupt':
      return 'red'
    case 'stopping':
    case 'stopped':
    case 'drained':
    case 'cancelled':
      return 'yellow'
    default:
      return null
  }
}
