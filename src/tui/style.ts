// Colour for the screen, or none: the API's painter and status colours (as
// `list` paints them), and reverse video for the selection — with colour off
// (NO_COLOR, --no-color, TERM=dumb) the only attribute left, a cursor rather
// than a colour, as monochrome terminal UIs show theirs.

export {painter, statusStyle, type Paint, type Style} from '../api/paint.js'

/** The selected row: reverse video over the whole line (its own colours dropped first so they do not fight it). */
export const reverse = (line: string) => `\u001B[7m${line.replace(/\u001B\[[0-9;]*m/g, '')}\u001B[27m`
