// Text as a terminal shows it: how many cells a string takes (wide East Asian
// characters and emoji take two, combining marks none, our own colour codes
// none), cutting to a width, and cleaning what a task printed so it can only
// draw text — never move the cursor, change modes or set the title.

const ESC = '\u001B'
/** The only escapes a line of ours may hold: SGR colour codes, added by our painter. */
const SGR = /\u001B\[[0-9;]*m/y

/**
 * Columns a code point takes. Ranges after Unicode's East Asian Width (W, F)
 * and the emoji blocks; zero for combining marks and joiners. Not a full
 * wcwidth, but the cases tasks print (CJK, emoji, accents) come out right.
 */
export function charWidth(cp: number): number {
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x1ab0 && cp <= 0x1aff) || (cp >= 0x20d0 && cp <= 0x20ff)) return 0
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x1f680 && cp <= 0x1f6ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2
  return 1
}

/** Cells the text takes on screen; our SGR codes take none. */
export function displayWidth(text: string): number {
  // the common case: plain ASCII with no escapes
  if (/^[\x20-\x7e]*$/.test(text)) return text.length
  let width = 0
  for (let i = 0; i < text.length; ) {
    if (text[i] === ESC) {
      SGR.lastIndex = i
      const m = SGR.exec(text)
      if (m) {
        i += m[0].length
        continue
      }
    }
    const cp = text.codePointAt(i)!
    width += charWidth(cp)
    i += cp > 0xffff ? 2 : 1
  }
  return width
}

/**
 * The text cut to at most `width` cells, `…` marking the cut; SGR codes are
 * carried through uncounted and a reset ends a cut line that had any.
 */
export function cut(text: string, width: number): string {
  if (width <= 0) return ''
  if (displayWidth(text) <= width) return text
  let out = ''
  let shown = 0
  let painted = false
  for (let i = 0; i < text.length; ) {
    if (text[i] === ESC) {
      SGR.lastIndex = i
      const m = SGR.exec(text)
      if (m) {
        out += m[0]
        painted = true
        i += m[0].length
        continue
      }
    }
    const cp = text.codePointAt(i)!
    const w = charWidth(cp)
    if (shown + w > width - 1) break
    out += String.fromCodePoint(cp)
    shown += w
    i += cp > 0xffff ? 2 : 1
  }
  return out + '…' + (painted ? `${ESC}[0m` : '')
}

/**
 * Plain text (no escapes) broken at spaces into lines of at most `width`
 * cells; a word longer than the width is cut (the frame never runs wider).
 */
export function wrap(text: string, width: number): string[] {
  if (width <= 0) return ['']
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ').filter((w) => w !== '')) {
    if (line === '') line = word
    else if (displayWidth(line) + 1 + displayWidth(word) <= width) line += ' ' + word
    else {
      lines.push(cut(line, width))
      line = word
    }
  }
  lines.push(cut(line, width))
  return lines
}

/** Exactly `width` cells: cut, or padded with spaces. */
export function fit(text: string, width: number): string {
  const cutText = cut(text, width)
  const w = displayWidth(cutText)
  return w < width ? cutText + ' '.repeat(width - w) : cutText
}

/** Right-aligned in exactly `width` cells. */
export function fitRight(text: string, width: number): string {
  const cutText = cut(text, width)
  const w = displayWidth(cutText)
  return w < width ? ' '.repeat(width - w) + cutText : cutText
}

// Every escape sequence a program may print: CSI (colours, cursor moves),
// OSC (titles, hyperlinks, up to BEL or ST), and the two-byte ones.
const ESCAPES = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|[PX^_][^\u001B]*(?:\u001B\\)?|[@-Z\\-_]|.)?|\u009B[0-?]*[ -/]*[@-~]/g
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/**
 * One line of a task's output as plain text a terminal cannot be driven by:
 * escapes removed, a carriage return keeps what a terminal would show last
 * (a progress bar's newest state), tabs expanded, other controls dropped.
 */
export function cleanLine(line: string): string {
  let text = line.includes(ESC) || line.includes('\u009B') ? line.replace(ESCAPES, '') : line
  if (text.includes('\r')) {
    const parts = text.split('\r').filter((part) => part !== '')
    text = parts.at(-1) ?? ''
  }
  if (text.includes('\t')) {
    let out = ''
    for (const ch of text) out += ch === '\t' ? ' '.repeat(8 - (displayWidth(out) % 8)) : ch
    text = out
  }
  return text.replace(CONTROLS, '')
}
