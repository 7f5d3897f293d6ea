// Which pager `diff` uses on a terminal: $DROVER_PAGER, else $PAGER, else less; empty or cat is none.

import {describe, expect, it} from 'vitest'
import {pagerCommand} from '../../src/cli/pager.js'

describe('pagerCommand', () => {
  it('DROVER_PAGER over PAGER over less; an empty one or cat means no pager', () => {
    expect(pagerCommand({})).toBe('less')
    expect(pagerCommand({PAGER: 'most'})).toBe('most')
    expect(pagerCommand({PAGER: 'most', DROVER_PAGER: 'less -S'})).toBe('less -S')
    expect(pagerCommand({PAGER: ''})).toBeNull()
    expect(pagerCommand({PAGER: 'less', DROVER_PAGER: ''})).toBeNull()
    expect(pagerCommand({PAGER: 'cat'})).toBeNull()
  })
})
