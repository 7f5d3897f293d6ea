// Terminal colours in the browser: SGR sequences (ESC [ … m) become spans
// with classes (the 16 colours) or CSSOM colours (256 and true colour — set
// through element.style, which the CSP allows, unlike style attributes).
// Other escape sequences are dropped. The state carries across chunks, and a
// sequence cut between two chunks waits for the rest.

interface Pen {
  fg: string | null
  bg: string | null
  bold: boolean
  dim: boolean
  italic: boolean
  underline: boolean
}

const blank = (): Pen => ({fg: null, bg: null, bold: false, dim: false, italic: false, underline: false})

// ESC [ params final | ESC ] … BEL/ST | ESC and one char
const ESCAPE = /\x1b(?:\[([0-9;?]*)([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g
// an escape that may still be incomplete at the very end of a chunk
const UNFINISHED = /\x1b(?:\[[0-9;?]*|\][^\x07\x1b]*|)$/

function color256(n: number): string {
  if (n < 16) return `c${n}`
  if (n < 232) {
    const v = [0, 95, 135, 175, 215, 255]
    const i = n - 16
    return `rgb(${v[Math.floor(i / 36)]},${v[Math.floor(i / 6) % 6]},${v[i % 6]})`
  }
  const g = 8 + (n - 232) * 10
  return `rgb(${g},${g},${g})`
}

export class AnsiRenderer {
  private pen = blank()
  private pending = ''

  /** The chunk as nodes; text goes in as text nodes only. */
  render(chunk: string): DocumentFragment {
    let text = this.pending + chunk
    const cut = UNFINISHED.exec(text)
    this.pending = cut && cut[0].length < 64 ? cut[0] : ''
    if (this.pending) text = text.slice(0, text.length - this.pending.length)
    // \r\n is a newline; a lone \r (a progress bar redrawing) starts a new line.
    text = text.replace(/\r\n/g, '\n').replace(/\r/g, '\n')
    const out = document.createDocumentFragment()
    let last = 0
    for (const match of text.matchAll(ESCAPE)) {
      this.emit(out, text.slice(last, match.index))
      last = match.index! + match[0].length
      if (match[2] === 'm') this.apply(match[1] ?? '')
    }
    this.emit(out, text.slice(last))
    return out
  }

  private emit(out: DocumentFragment, text: string): void {
    // other C0 controls (bell, backspace) would show as boxes
    text = text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '')
    if (!text) return
    const p = this.pen
    if (!p.fg && !p.bg && !p.bold && !p.dim && !p.italic && !p.underline) {
      out.append(text)
      return
    }
    const span = document.createElement('span')
    const classes: string[] = []
    if (p.fg?.startsWith('c')) classes.push(`fg-${p.fg.slice(1)}`)
    else if (p.fg) span.style.color = p.fg
    if (p.bg?.startsWith('c')) classes.push(`bg-${p.bg.slice(1)}`)
    else if (p.bg) span.style.backgroundColor = p.bg
    if (p.bold) classes.push('b')
    if (p.dim) classes.push('dim')
    if (p.italic) classes.push('i')
    if (p.underline) classes.push('u')
    span.className = classes.join(' ')
    span.textContent = text
    out.append(span)
  }

  private apply(params: string): void {
    const codes = params === '' ? [0] : params.split(';').map((c) => (c === '' ? 0 : Number(c)))
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i]
      if (c === 0) this.pen = blank()
      else if (c === 1) this.pen.bold = true
      else if (c === 2) this.pen.dim = true
      else if (c === 3) this.pen.italic = true
      else if (c === 4) this.pen.underline = true
      else if (c === 22) this.pen.bold = this.pen.dim = false
      else if (c === 23) this.pen.italic = false
      else if (c === 24) this.pen.underline = false
      else if (c >= 30 && c <= 37) this.pen.fg = `c${c - 30}`
      else if (c >= 90 && c <= 97) this.pen.fg = `c${c - 90 + 8}`
      else if (c === 39) this.pen.fg = null
      else if (c >= 40 && c <= 47) this.pen.bg = `c${c - 40}`
      else if (c >= 100 && c <= 107) this.pen.bg = `c${c - 100 + 8}`
      else if (c === 49) this.pen.bg = null
      else if ((c === 38 || c === 48) && codes[i + 1] === 5) {
        const value = color256(codes[i + 2] ?? 0)
        if (c === 38) this.pen.fg = value
        else this.pen.bg = value
        i += 2
      } else if ((c === 38 || c === 48) && codes[i + 1] === 2) {
        const value = `rgb(${codes[i + 2] ?? 0},${codes[i + 3] ?? 0},${codes[i + 4] ?? 0})`
        if (c === 38) this.pen.fg = value
        else this.pen.bg = value
        i += 4
      }
    }
  }
}
