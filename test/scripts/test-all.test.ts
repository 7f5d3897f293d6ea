// `npm test`'s plan and its runner: unit and e2e on every Node drover
// supports, the other suites once on the newest; stages side by side, never
// more than asked, each one's output whole, and a failure in any one fails
// the run. The runner is driven with small real stages (node -e).

import {execa} from 'execa'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {makeTempDir, ROOT} from '../helpers/cli.js'
import {posixOnly} from '../helpers/skips.js'
import {EVERY_NODE_E2E, failureLines, plan, runStages} from '../../scripts/test-all.mjs'

const SCRIPT = path.join(ROOT, 'scripts', 'test-all.mjs')

describe('the plan', () => {
  it('unit and e2e on each Node; Slurm, agents and chaos once, on the newest; Windows under Wine once', () => {
    const stages = plan(['20', '22', '24'])
    const names = stages.map((stage: {name: string}) => stage.name)
    for (const major of ['20', '22', '24']) expect(names).toEqual(expect.arrayContaining([`unit@${major}`, `e2e@${major}`]))
    const once = stages.filter((stage: {name: string}) => !/@/.test(stage.name))
    expect(once.map((stage: {name: string}) => stage.name).sort()).toEqual(['agents', 'agents-latest', 'chaos', 'slurm', 'windows'])
    // Wine's node.exe is the one under test there; the oldest Linux Node launches it
    expect(Object.fromEntries(once.map((stage: {name: string; major: string}) => [stage.name, stage.major]))).toEqual({agents: '24', 'agents-latest': '24', chaos: '24', slurm: '24', windows: '20'})
    // longest first
    const lengths = stages.map((stage: {minutes: number}) => stage.minutes)
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a))
  })

  it('the whole e2e suite on the newest; on the others the files that reach each part of Node drover leans on', () => {
    for (const file of EVERY_NODE_E2E) expect(existsSync(path.join(ROOT, file)), file).toBe(true)
    const args = (name: string) => plan(['20', '22', '24']).find((stage: {name: string}) => stage.name === name).args as string[]
    for (const major of ['20', '22']) expect(args(`e2e@${major}`).slice(-EVERY_NODE_E2E.length)).toEqual(EVERY_NODE_E2E)
    expect(args('e2e@24').at(-1)).toBe('e2e')
    // a matrix job of one Node runs it whole there
    expect(plan(['22']).find((stage: {name: string}) => stage.name === 'e2e@22').args.at(-1)).toBe('e2e')
  })

  it('the Nodes it tests are the ones engines names', () => {
    const engines = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node as string
    const majors = [...engines.matchAll(/\^(\d+)\./g)].map((match) => match[1])
    expect(majors).toEqual(['20', '22', '24'])
    const nodes = readFileSync(SCRIPT, 'utf8').match(/DROVER_TEST_NODES \|\| '([\d,]+)'/)![1]
    expect(nodes.split(',')).toEqual(majors)
  })

  it('--list names the stages, and an unknown one is refused (exit 2)', async () => {
    const listed = await execa(process.execPath, [SCRIPT, '--list'], {env: {DROVER_TEST_ONLY: 'e2e@22,chaos'}})
    expect(listed.stdout.split('\n').map((line) => line.split('\t')[0])).toEqual(['chaos', 'e2e@22'])
    const unknown = await execa(process.execPath, [SCRIPT], {env: {DROVER_TEST_ONLY: 'e2e@23'}, reject: false})
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toContain('no stage is called e2e@23')
  })
})

describe('the runner', () => {
  /**
   * A stage that notes when it starts and ends, prints a line, and exits with
   * `code` once another stage runs beside it (or after 3 s, when none does):
   * whatever the machine's load, stages that may overlap do.
   */
  const stage = (name: string, trace: string, code = 0) => ({
    name,
    major: process.versions.node.split('.')[0],
    minutes: 1,
    args: [
      '-e',
      `const fs = require('fs'); const t = ${JSON.stringify(trace)}; fs.appendFileSync(t, 'start ${name} ' + Date.now() + '\\n'); console.log('out of ${name}');` +
        `const count = (w) => fs.readFileSync(t, 'utf8').split('\\n').filter((l) => l.startsWith(w)).length; const until = Date.now() + 3000;` +
        `const tick = () => { if (count('start') - count('end') > 1 || Date.now() > until) { setTimeout(() => { fs.appendFileSync(t, 'end ${name} ' + Date.now() + '\\n'); process.exit(${code}) }, 100) } else setTimeout(tick, 20) }; tick()`,
    ],
  })

  it('runs at most `jobs` stages at once, prints each one whole, and reports every result', async () => {
    const dir = makeTempDir('drover-test-all-')
    const trace = path.join(dir, 'trace')
    let printed = ''
    const stages = ['a', 'b', 'c', 'd', 'e'].map((name) => stage(name, trace, name === 'c' ? 3 : 0))
    const nodes = {[process.versions.node.split('.')[0]]: process.execPath}
    const results = await runStages(stages, {jobs: 2, nodes, cwd: dir, write: (text: string) => (printed += text)})

    expect(results.map((r: {name: string; status: number | string}) => [r.name, r.status])).toEqual([['a', 0], ['b', 0], ['c', 3], ['d', 0], ['e', 0]])
    // never more than two at a time, and two at a time it did run. In the order of the trace's lines, which is
    // the order the stages appended them: not by their times, as separate processes' clocks under Wine disagree.
    let now = 0
    let most = 0
    const events = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
    for (const [what] of events) most = Math.max(most, (now += what === 'start' ? 1 : -1))
    expect(most).toBe(2)
    for (const name of ['a', 'b', 'c', 'd', 'e']) expect(printed).toMatch(new RegExp(`===== ${name} \\(Node \\d+\\): [^\\n]*=====\\nout of ${name}\\n===== end of ${name} =====`))
    expect(printed).toContain('===== c (Node')
    expect(printed).toMatch(/c \(Node \d+\): FAILED \(3\)/)
    expect(printed.trimEnd().split('\n').at(-1)).toBe('stages: 4 passed, 1 failed')
    // the failed stage is named again after the table, where a kept tail of the output still shows it
    expect(printed.slice(printed.lastIndexOf('test-all: every stage ended'))).toContain('failed in c:\n  (no test named')
  })

  posixOnly('process groups and sh').it('a stage that signals its own process group ends alone, and fails saying so', async () => {
    const dir = makeTempDir('drover-test-all-')
    const major = process.versions.node.split('.')[0]
    let printed = ''
    const stages = [
      // kill(0): what a test does that signals a pid it read as 0
      {name: 'rogue', major, minutes: 2, command: 'sh', args: ['-c', 'sleep 1; kill -KILL 0']},
      {name: 'calm', major, minutes: 1, args: ['-e', 'setTimeout(() => {}, 2000)']},
    ]
    const results = await runStages(stages, {jobs: 2, nodes: {[major]: process.execPath}, cwd: dir, write: (text: string) => (printed += text)})
    expect(results.map((r: {name: string; status: number | string}) => [r.name, r.status])).toEqual([['rogue', 'SIGKILL'], ['calm', 0]])
    expect(printed).toContain('failed in rogue:\n  the stage was ended by SIGKILL: something signalled its process group')
  })

  it("names vitest's failed tests and each one's first error line, without colour", () => {
    const log = [
      '\u001b[31m FAIL \u001b[39m test/e2e/slurm.test.ts > slurm > drains a job',
      'AssertionError: expected \'running\' to be \'drained\'',
      ' ❯ test/e2e/slurm.test.ts:40:5',
      ' FAIL  test/e2e/agents.test.ts > claude > resumes',
      'Error: Test timed out in 120000ms.',
      ' FAIL  test/e2e/slurm.test.ts > slurm > drains a job',
      ' ✓ test/e2e/core.test.ts (12 tests)',
    ].join('\n')
    expect(failureLines(log)).toEqual([
      'FAIL  test/e2e/slurm.test.ts > slurm > drains a job',
      "  AssertionError: expected 'running' to be 'drained'",
      'FAIL  test/e2e/agents.test.ts > claude > resumes',
      '  Error: Test timed out in 120000ms.',
    ])
    expect(failureLines(' ✓ all good\n')).toEqual([])
  })

  it("keeps what the Slurm cluster's keeper said of a daemon it found dead, once", () => {
    const said = 'slurm-cluster: slurmctld (pid 812) was not running at 2026-12-06T03:24:13.740Z; its log ended: fatal: x'
    const log = ['stderr | test/slurm/config.test.ts > doctor', said, said, ' FAIL  test/slurm/config.test.ts > doctor', 'AssertionError: no'].join('\n')
    expect(failureLines(log)).toEqual([said, 'FAIL  test/slurm/config.test.ts > doctor', '  AssertionError: no'])
  })
})
