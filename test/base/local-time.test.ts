import {afterEach, describe, expect, it} from 'vitest'
import {localTimeWithOffset} from '../../src/base/local-time.js'

const zone = process.env.TZ
afterEach(() => {
  if (zone === undefined) delete process.env.TZ
  else process.env.TZ = zone
})

describe('localTimeWithOffset', () => {
  it('writes the local date and time with the zone\'s offset, naming the same moment', () => {
    const moment = new Date('2026-12-05T06:39:46.076Z')
    process.env.TZ = 'Asia/Kolkata'
    expect(localTimeWithOffset(moment)).toBe('2026-12-05 12:09:46 +05:30')
    process.env.TZ = 'America/St_Johns'
    expect(localTimeWithOffset(moment)).toBe('2026-12-05 03:09:46 -03:30')
    process.env.TZ = 'UTC'
    expect(localTimeWithOffset(moment)).toBe('2026-12-05 06:39:46 +00:00')
    const [day, clock, offset] = localTimeWithOffset(moment).split(' ')
    expect(Date.parse(`${day}T${clock}${offset}`)).toBe(Math.floor(moment.getTime() / 1000) * 1000)
  })
})
