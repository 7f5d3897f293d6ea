// The bytes terminals send for keys, as top reads them in raw mode.

import {describe, expect, it} from 'vitest'
import {parseKeys} from '../../src/tui/keys.js'

const names = (data: string) => parseKeys(data).map((k) => (k.name === 'char' ? k.ch : k.name === 'wheel' ? `wheel${k.delta}` : k.name))

describe('parseKeys', () => {
  it('reads arrows, paging, Home and End in the CSI and SS3 forms', () => {
    expect(names('\u001B[A\u001B[B\u001BOA\u001BOB')).toEqual(['up', 'down', 'up', 'down'])
    expect(names('\u001B[5~\u001B[6~')).toEqual(['pageup', 'pagedown'])
    expect(names('\u001B[H\u001B[F\u001B[1~\u001B[4~\u001BOH\u001BOF')).toEqual(['home', 'end', 'home', 'end', 'home', 'end'])
    expect(names('\u001B[1;5A')).toEqual(['up'])
  })

  it('reads Enter, Escape alone, Backspace, Ctrl-C and text', () => {
    expect(names('\r')).toEqual(['enter'])
    expect(names('\r\n')).toEqual(['enter'])
    expect(names('\u001B')).toEqual(['escape'])
    expect(names('\u007f\u0003')).toEqual(['backspace', 'ctrl-c'])
    expect(names('q/é日')).toEqual(['q', '/', 'é', '日'])
  })

  it('reads several keys in one read, and the mouse wheel when reported', () => {
    expect(names('jjk\u001B[B')).toEqual(['j', 'j', 'k', 'down'])
    expect(names('\u001B[<64;10;5M\u001B[<65;10;5M')).toEqual(['wheel-3', 'wheel3'])
  })
})
