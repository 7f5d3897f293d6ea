// One fast-check seed per test file, chosen here rather than by each fc.assert, so that
// a property that fails in CI can be replayed: the seed is printed with the failure, and
// DROVER_FC_SEED=N runs every property of the file with it again. (fast-check's own report
// names a seed too, but only for that one assert, and a test's values can depend on what
// an earlier property in the same file generated.)

import fc from 'fast-check'
import {beforeEach} from 'vitest'

const fromEnv = process.env.DROVER_FC_SEED
const seed = fromEnv !== undefined && /^-?\d+$/.test(fromEnv) ? Number(fromEnv) : (Date.now() ^ (Math.random() * 0x1_0000_0000)) | 0

fc.configureGlobal({seed})

beforeEach(({onTestFailed}) => {
  onTestFailed(() => {
    process.stderr.write(`fast-check seed of this file: ${seed} (replay: DROVER_FC_SEED=${seed} npx vitest run FILE)\n`)
  })
})
