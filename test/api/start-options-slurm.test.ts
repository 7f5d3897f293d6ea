// prepareStart's executor and Slurm placement: chosen by option or
// DROVER_EXECUTOR, checked before anything touches the state dir.

import {afterEach, describe, expect, it} from 'vitest'
import {posixOnly} from '../helpers/skips.js'
import {prepareStart} from '../../src/api/start-options.js'
import {shownStatus, taskJson} from '../../src/api/task-json.js'
import {outcomeLabel} from '../../src/tasks/outcome.js'
import {decodeRecord, encodeRecord} from '../../src/state/record-codec.js'
import {newRecord} from '../../src/tasks/launch.js'

// Slurm has no Windows build: start refuses --executor slurm there, so these tasks cannot be made.
const slurmOnly = posixOnly('Slurm, which start refuses on Windows')

const saved = process.env.DROVER_EXECUTOR
afterEach(() => {
  if (saved === undefined) delete process.env.DROVER_EXECUTOR
  else process.env.DROVER_EXECUTOR = saved
})

const usage = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    return {code: (error as {exitCode?: number}).exitCode, message: (error as Error).message}
  }
  throw new Error('no error')
}

describe('the executor of a new task', () => {
  it('is local by default, with no placement', () => {
    delete process.env.DROVER_EXECUTOR
    expect(prepareStart({command: ['sleep', '1']}).spec).toMatchObject({executor: 'local', slurm: null})
  })

  slurmOnly.it('comes from DROVER_EXECUTOR, and the option wins over it', () => {
    process.env.DROVER_EXECUTOR = 'slurm'
    expect(prepareStart({command: ['sleep', '1']}).spec).toMatchObject({executor: 'slurm', slurm: {jobId: null, opts: []}})
    expect(prepareStart({command: ['sleep', '1'], executor: 'local'}).spec.executor).toBe('local')
  })

  slurmOnly.it('keeps the Slurm placement as asked', () => {
    const spec = prepareStart({
      command: ['sleep', '1'],
      executor: 'slurm',
      slurm: {partition: 'gpu', time: '1-02:00:00', cpus: 4, mem: '8G', drainBeforeLimitS: 300, opts: ['--account=lab']},
    }).spec
    expect(spec.slurm).toEqual({jobId: null, partition: 'gpu', time: '1-02:00:00', cpus: 4, mem: '8G', drainBeforeLimitS: 300, opts: ['--account=lab']})
  })

  it('refuses an unknown executor, Slurm options without it, and bad values — exit 2', () => {
    delete process.env.DROVER_EXECUTOR
    expect(usage(() => prepareStart({command: ['sleep', '1'], executor: 'k8s' as 'local'}))).toMatchObject({code: 2, message: expect.stringMatching(/unknown executor 'k8s'/)})
    process.env.DROVER_EXECUTOR = 'nomad'
    expect(usage(() => prepareStart({command: ['sleep', '1']})).message).toMatch(/from DROVER_EXECUTOR/)
    delete process.env.DROVER_EXECUTOR
    expect(usage(() => prepareStart({command: ['sleep', '1'], slurm: {partition: 'gpu'}})).message).toMatch(/need --executor slurm/)
    for (const slurm of [{cpus: 0}, {cpus: 1.5}, {drainBeforeLimitS: 70_000}, {time: 'soon'}, {partition: 'a b'}, {mem: '4G;x'}]) {
      expect(usage(() => prepareStart({command: ['sleep', '1'], executor: 'slurm', slurm})).code, JSON.stringify(slurm)).toBe(2)
    }
  })

  slurmOnly.it('refuses --on-limit wait on Slurm (a job would sit on its allocation until the limit lifts); queues, dependencies and timeouts go through', () => {
    delete process.env.DROVER_EXECUTOR
    const claude = ['claude', '-p', 'x']
    expect(usage(() => prepareStart({command: claude, agent: 'claude', executor: 'slurm', onLimit: 'wait'}))).toMatchObject({code: 2, message: expect.stringMatching(/--on-limit wait does not go with --executor slurm/)})
    const prepared = prepareStart({command: ['true'], executor: 'slurm', queue: 'q', after: ['1'], timeoutMs: 5000})
    expect(prepared.spec).toMatchObject({executor: 'slurm', policies: {timeoutMs: 5000}})
    expect(prepared.queue).toMatchObject({queue: 'q', after: ['1']})
  })
})

describe('the status a Slurm task is shown with', () => {
  const base = () => ({...newRecord(3, prepareStart({command: ['true'], executor: 'slurm'}).spec), status: 'starting' as const})

  slurmOnly.it("is queued while its job pends in Slurm, with Slurm's reason in the label; its record stays starting", () => {
    const engineWait = {engine: 'Slurm', reason: 'Resources'}
    const pending = {...base(), reason: 'queued in Slurm: job 42 pending (Resources)', engineWait, slurm: {...base().slurm!, jobId: '42'}}
    const json = taskJson(pending)
    expect(json).toMatchObject({status: 'queued', reason: 'queued in Slurm: job 42 pending (Resources)', engineWait, jobId: '42', executor: 'slurm'})
    expect(outcomeLabel(json)).toBe('queued (Slurm: Resources)')
    expect(pending.status).toBe('starting')
  })

  slurmOnly.it('is starting while the job has just begun, and a local task is never taken for a queued job; the reason is never read for it', () => {
    expect(taskJson({...base(), reason: null}).status).toBe('starting')
    expect(taskJson({...base(), reason: 'queued in Slurm: job 1 pending (Resources)'})).toMatchObject({status: 'starting', engineWait: null})
    expect(shownStatus({status: 'starting', executor: 'local', engineWait: {engine: 'Slurm', reason: 'Resources'}})).toBe('starting')
  })
})

describe('records and executors', () => {
  it('a record written before executors were named reads as local', () => {
    const record = JSON.parse(encodeRecord(newRecord(1, prepareStart({command: ['sleep', '1'], executor: 'local'}).spec)))
    delete record.executor
    delete record.slurm
    delete record.host
    expect(decodeRecord(JSON.stringify(record))).toMatchObject({executor: 'local', slurm: null, host: null})
  })

  slurmOnly.it('a Slurm record round-trips, and a bad placement is refused', () => {
    const record = newRecord(2, prepareStart({command: ['sleep', '1'], executor: 'slurm', slurm: {time: '5'}}).spec)
    expect(decodeRecord(encodeRecord(record))).toEqual(record)
    expect(() => decodeRecord(JSON.stringify({...record, executor: 'k8s'}))).toThrow(/executor/)
    expect(() => decodeRecord(JSON.stringify({...record, slurm: {...record.slurm, cpus: 'x'}}))).toThrow(/slurm/)
  })
})

describe("the state dir's config.json", () => {
  const slurmConfig = {executor: 'slurm' as const, slurm: {partition: 'gpu', time: '60', cpus: 2, mem: '4G', drainBeforeLimit: '5m', opts: ['--account=lab']}, source: '/s/config.json'}

  slurmOnly.it('comes after the option and DROVER_EXECUTOR, before local', () => {
    delete process.env.DROVER_EXECUTOR
    expect(prepareStart({command: ['true']}, slurmConfig).spec.executor).toBe('slurm')
    expect(prepareStart({command: ['true'], executor: 'local'}, slurmConfig).spec.executor).toBe('local')
    process.env.DROVER_EXECUTOR = 'local'
    expect(prepareStart({command: ['true']}, slurmConfig).spec.executor).toBe('local')
    expect(prepareStart({command: ['true'], executor: 'slurm'}, {executor: 'local'}).spec.executor).toBe('slurm')
    delete process.env.DROVER_EXECUTOR
    expect(prepareStart({command: ['true']}, {executor: 'local'}).spec.executor).toBe('local')
  })

  slurmOnly.it('gives a Slurm task its defaults, each replaced by its option; its opts come first, so a flag of the same name wins in sbatch', () => {
    delete process.env.DROVER_EXECUTOR
    expect(prepareStart({command: ['true']}, slurmConfig).spec.slurm).toEqual({jobId: null, partition: 'gpu', time: '60', cpus: 2, mem: '4G', drainBeforeLimitS: 300, opts: ['--account=lab']})
    const given = prepareStart({command: ['true'], slurm: {partition: 'debug', cpus: 1, opts: ['--account=other']}}, slurmConfig).spec.slurm
    expect(given).toEqual({jobId: null, partition: 'debug', time: '60', cpus: 1, mem: '4G', drainBeforeLimitS: 300, opts: ['--account=lab', '--account=other']})
    // defaults for Slurm tasks only: a local task ignores them, and Slurm flags still need Slurm
    expect(prepareStart({command: ['true'], executor: 'local'}, slurmConfig).spec.slurm).toBeNull()
    expect(usage(() => prepareStart({command: ['true'], slurm: {partition: 'gpu'}}, {slurm: {partition: 'gpu'}})).message).toMatch(/need --executor slurm/)
  })

  slurmOnly.it("refuses a Slurm default that is not one, naming the file's key — exit 2", () => {
    delete process.env.DROVER_EXECUTOR
    for (const [slurm, why] of [
      [{time: 'soon'}, /^\/s\/config\.json: slurm\.time 'soon' is not a Slurm time limit/],
      [{partition: 'a b'}, /^\/s\/config\.json: slurm\.partition 'a b' is not a Slurm partition name/],
      [{drainBeforeLimit: 'later'}, /^\/s\/config\.json: slurm\.drainBeforeLimit: invalid duration/],
      [{drainBeforeLimit: '30h'}, /^\/s\/config\.json: slurm\.drainBeforeLimit must be between/],
    ] as const) {
      expect(usage(() => prepareStart({command: ['true']}, {executor: 'slurm', slurm, source: '/s/config.json'}))).toMatchObject({code: 2, message: expect.stringMatching(why)})
    }
  })
})
