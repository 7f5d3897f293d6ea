// The keys a terminal sends, as names: the bytes of one read of stdin in raw
// mode become a list of keys. Arrow and paging keys come in both the CSI
// (`ESC [ A`) and SS3 (`ESC O A`) forms terminals and tmux use; an ESC alone
// at the end of a read is the Escape key.

export type Key =
  | {name: 'up' | 'down' | 'left' | 'right' | 'pageup' | 'pagedown' | 'home' | 'end' | 'enter' | 'escape' | 'backspace' | 'tab' | 'ctrl-c' | 'ctrl-d' | 'ctrl-l' | 'ctrl-u'}
  | {name: 'char'; ch: string}
  /** a mouse wheel turn (when the terminal reports the mouse). */
  | {name: 'wheel'; delta: number}

const CSI_KEYS: Record<string, Key['name']> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
  '1~': 'home',
  '7~': 'home',
  '4~': 'end',
  '8~': 'end',
  '5~': 'pageup',
  '6~': 'pagedown',
}

const CONTROL_KEYS: Record<string, Key['name']> = {
  '\r': 'enter',
  '\n': 'enter',
  '\t': 'tab',
  '\u007f': 'backspace',
  '\b': 'backspace',
  '\u0003': 'ctrl-c',
  '\u0004': 'ctrl-d',
  '\u000c': 'ctrl-l',
  '\u0015': 'ctrl-u',
}

export function parseKeys(data: string): Key[] {
  const keys: Key[] = []
  for (let i = 0; i < data.length; ) {
    const ch = data[i]
    if (ch === '\u001B') {
      const next = data[i + 1]
      if (next === '[' || next === 'O') {
        // ESC [ params final: params are digits and ';', the final a letter or '~'
        const m = /^[0-9;<]*[A-Za-z~]/.exec(data.slice(i + 2, i + 24))
        if (m) {
          const body = m[0]
          i += 2 + body.length
          const mouse = /^<(\d+);\d+;\d+[Mm]$/.exec(body)
          if (mouse) {
            const button = Number(mouse[1])
            if (button === 64 || button === 65) keys.push({name: 'wheel', delta: button === 64 ? -3 : 3})
            continue
          }
          // modifiers (`1;5A` for Ctrl-Up) do not change what the key does here
          const plain = body.replace(/^1;\d+/, '').replace(/;\d+~$/, '~')
          const name = CSI_KEYS[plain] ?? CSI_KEYS[body]
          if (name) keys.push({name} as Key)
          continue
        }
        i += 2
        continue
      }
      if (next === undefined || next === '\u001B') {
        keys.push({name: 'escape'})
        i += 1
        continue
      }
      // Alt+key: treated as Escape then the key, as readline does without a meta binding
      keys.push({name: 'escape'})
      i += 1
      continue
    }
    const control = CONTROL_KEYS[ch]
    if (control) {
      keys.push({name: control} as Key)
      // a CRLF is one Enter
      i += ch === '\r' && data[i + 1] === '\n' ? 2 : 1
      continue
    }
    const cp = data.codePointAt(i)!
    const text = String.fromCodePoint(cp)
    if (cp >= 0x20) keys.push({name: 'char', ch: text})
    i += text.length
  }
  return keys
}
