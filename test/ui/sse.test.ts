import {describe, expect, it} from 'vitest'
import {completeUtf8Length} from '../../src/ui/sse.js'

describe('completeUtf8Length', () => {
  it('leaves out a character cut at the end, and only that', () => {
    const text = Buffer.from('a€😀') // 1 + 3 + 4 bytes
    const whole = [0, 1, 1, 1, 4, 4, 4, 4, 8]
    for (let n = 0; n <= text.length; n++) expect([n, completeUtf8Length(text.subarray(0, n))]).toEqual([n, whole[n]])
  })

  it('passes bytes that are no UTF-8 through rather than holding them forever', () => {
    expect(completeUtf8Length(Buffer.from([0x80, 0x80, 0x80, 0x80]))).toBe(4)
    expect(completeUtf8Length(Buffer.from([0x41, 0xff]))).toBe(2)
  })
})
