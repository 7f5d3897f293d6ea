// Queue names from a command's side: which new name passed to `start --queue`
// is a typo of an existing queue (refused) and which is a new queue (made).

import {describe, expect, it} from 'vitest'
import {nearMiss} from '../../src/tasks/queues.js'

describe('nearMiss', () => {
  it('takes a swapped pair, one letter off, or another case for the existing queue', () => {
    expect(nearMiss('agnets', 'agents')).toBe(true)
    expect(nearMiss('agent', 'agents')).toBe(true)
    expect(nearMiss('Agents', 'agents')).toBe(true)
    expect(nearMiss('buidl', 'build')).toBe(true)
  })

  it('leaves numbered siblings, short names and different words alone', () => {
    expect(nearMiss('q2', 'q')).toBe(false)
    expect(nearMiss('q2', 'q1')).toBe(false)
    expect(nearMiss('gpu2', 'gpu1')).toBe(false)
    expect(nearMiss('gpu', 'cpu')).toBe(false)
    expect(nearMiss('tests', 'docs')).toBe(false)
    expect(nearMiss('lint', 'build')).toBe(false)
  })
})
