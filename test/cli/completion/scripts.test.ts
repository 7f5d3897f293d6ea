// The scripts embed commands, flags and fixed values unquoted: a value that
// would need quoting is refused when the script is made, never printed broken.

import {describe, expect, it} from 'vitest'
import {SHELLS, completionScript} from '../../../src/cli/completion/scripts.js'
import type {CommandSpec} from '../../../src/cli/completion/spec.js'

const spec = (options: string[]): CommandSpec => ({
  id: 'start',
  summary: "start's summary, with 'quotes' and $(a command)",
  task: 'first',
  firstArgOptions: [],
  flags: [{long: ['--agent'], short: null, takesValue: true, options, task: false, description: 'the agent'}],
})

describe('completionScript', () => {
  it.each(SHELLS)('makes a %s script of plain words', (shell) => {
    expect(completionScript(shell, [spec(['claude', 'codex'])], 'drover')).toContain('codex')
  })

  it.each([['two words'], ["it's"], ['$(x)'], ['a;b']])('refuses a fixed value that would need quoting: %s', (odd) => {
    for (const shell of SHELLS) expect(() => completionScript(shell, [spec(['claude', odd])], 'drover')).toThrow(/cannot embed/)
  })
})
