// When to colour: an explicit --color or --no-color decides; otherwise only on
// a terminal, and never with NO_COLOR (any non-empty value) or TERM=dumb.
// no-color.org asks exactly this: NO_COLOR sets the default, a flag the user
// typed for this one command overrides it.

export {painter, statusStyle, type Paint, type Style} from '../../api/paint.js'

export function colorEnabled(stream: {isTTY?: boolean}, flag?: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag !== undefined) return flag
  if (env.NO_COLOR) return false
  return Boolean(stream.isTTY) && env.TERM !== 'dumb'
}
