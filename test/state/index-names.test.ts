// The ids of a listing that no index segment holds: the comparison of bytes
// when the segment opens the listing, the walk otherwise — the same answer.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {idsNotIn} from '../../src/state/index.js'

const naive = (list: number[], held: number[]) => list.filter((id) => !held.includes(id))

describe('idsNotIn', () => {
  it('every task indexed and new ones after it: those after', () => {
    expect(idsNotIn(Float64Array.from([2, 3, 5, 8, 9, 10]), Float64Array.from([2, 3, 5, 8]))).toEqual([9, 10])
    expect(idsNotIn(Float64Array.from([2, 3]), Float64Array.from([2, 3]))).toEqual([])
  })

  it('a task pruned, another not indexed, a plain array: the walk', () => {
    expect(idsNotIn(Float64Array.from([2, 4, 5, 8]), Float64Array.from([2, 3, 5, 8]))).toEqual([4])
    expect(idsNotIn([1, 3, 9], Float64Array.from([2, 3, 5]))).toEqual([1, 9])
    expect(idsNotIn(Float64Array.from([1, 2]), new Float64Array(0))).toEqual([1, 2])
  })

  it('is the ids of the list not held, whatever the two ascending lists', () => {
    const ascending = fc.uniqueArray(fc.integer({min: 1, max: 300}), {maxLength: 60}).map((ids) => ids.sort((a, b) => a - b))
    fc.assert(
      fc.property(ascending, ascending, fc.boolean(), (list, held, opened) => {
        // half the time the held ids open the list, as after a compaction
        const full = opened ? [...new Set([...held, ...list.filter((id) => id > (held.at(-1) ?? 0))])] : list
        expect(idsNotIn(Float64Array.from(full), Float64Array.from(held))).toEqual(naive(full, held))
      }),
    )
  })
})
