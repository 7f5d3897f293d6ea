// BENCH_UPDATE=1 replaces, in bench/RESULTS.md, the rows of the cases it ran:
// those named for their case and those named for what they are (`floor: …`),
// which a case writes beside its own and which would otherwise pile up — in
// the results table, however many tables are written by hand after it — and
// their notes.

import {describe, expect, it} from 'vitest'
import {row, updatedResults} from '../../bench/lib/report.mjs'

const machine = {load: '0.10 0.20 0.30'}

describe("the bench's update of RESULTS.md", () => {
  it('replaces the rows of the cases it ran, floors by name, and keeps the rest', () => {
    const text = [
      '# Benchmark results',
      'Do not edit by hand: run the benchmark again.',
      '',
      '## Results',
      '',
      '| case | drover | beside | ratio | goal | met? |',
      '| --- | --- | --- | --- | --- | --- |',
      '| round trip: `node -e 0` (the floor) | 47.6 ms | — | — | — |  |',
      '| floor: oclif alone | 127.0 ms | 47.6 ms (`node -e 0`) | 2.67× | — |  |',
      '| memory: idle runner RSS | 41.1 MiB | 37.7 MiB (bare idle `node`) | 1.092× | ≤ 1.1× | yes |',
      '',
      'Every goal was met.',
      '',
      '## Notes',
      '',
      '- floor: oclif alone: old note',
      '- memory: idle runner RSS: kept note',
      '',
      '## A table written by hand',
      '',
      '| case | before | after | goal |',
      '| --- | --- | --- | --- |',
      '| by hand | 1 | 2 | — |',
    ].join('\n')
    const rows = [row('round trip: `node -e 0` (the floor)', 21, null, null, 'ms'), row('floor: oclif alone', 60, '`node -e 0`', 21, 'ms', null, 'new note')]
    const out = updatedResults(text, {rows, cases: ['roundtrip'], date: '2026-12-05T00:00:00Z', durationMs: 1000, machine}).split('\n')
    expect(out.filter((line) => line.startsWith('| floor: oclif alone'))).toEqual(['| floor: oclif alone | 60.0 ms | 21.0 ms (`node -e 0`) | 2.86× | — |  |'])
    expect(out.filter((line) => line.startsWith('| round trip:'))).toEqual(['| round trip: `node -e 0` (the floor) | 21.0 ms | — | — | — |  |'])
    expect(out).toContain('| memory: idle runner RSS | 41.1 MiB | 37.7 MiB (bare idle `node`) | 1.092× | ≤ 1.1× | yes |')
    // into the results table, not the last table of the file
    expect(out.indexOf('| floor: oclif alone | 60.0 ms | 21.0 ms (`node -e 0`) | 2.86× | — |  |')).toBeLessThan(out.indexOf('Every goal was met.'))
    expect(out.at(-1)).toBe('| by hand | 1 | 2 | — |')
    expect(out.filter((line) => line.startsWith('- '))).toEqual(['- memory: idle runner RSS: kept note', '- floor: oclif alone: new note'])
  })
})
