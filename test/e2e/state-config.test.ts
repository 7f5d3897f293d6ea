// The state dir's config.json through the CLI, without a cluster: a valid one
// naming the local executor starts tasks as before; a bad one refuses every
// start with one line naming it, exit 2, and nothing written.

import {readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, json, makeStateDir, readTask, ROOT} from '../helpers/cli.js'

// The built library, whose runner is the bundled one (as a script importing 'drover' gets it).
const {openStateDir} = (await import(path.join(ROOT, 'dist/api/drover.js'))) as typeof import('../../src/api/drover.js')

afterEach(() => cleanupStateDirs())

describe("the state dir's config.json", () => {
  it('executor local: starts run locally, and the Slurm defaults do not touch them', async () => {
    const dir = makeStateDir()
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({executor: 'local', slurm: {partition: 'gpu'}}))
    const started = await drover(dir, ['start', '--json', '--', 'true'], {env: {DROVER_EXECUTOR: ''}})
    expect(started.exitCode, started.stderr).toBe(0)
    expect(json(started)).toMatchObject({executor: 'local', jobId: null})
    expect(readTask(dir, json(started).id).slurm).toBeNull()
  })

  it('a bad one: exit 2, one line naming the file (also as JSON), and nothing in the state dir changed', async () => {
    const dir = makeStateDir()
    const file = path.join(dir, 'config.json')
    for (const [text, why] of [
      ['{"executor": "slurm",', 'not valid JSON'],
      ['{"executor": "nomad"}', 'executor must be "local" or "slurm"'],
      ['{"executor": "slurm", "slurm": {"time": "soon"}}', "slurm.time 'soon' is not a Slurm time limit"],
    ]) {
      writeFileSync(file, text)
      const refused = await drover(dir, ['start', '--', 'true'], {env: {DROVER_EXECUTOR: ''}})
      expect(refused.exitCode, text).toBe(2)
      expect(refused.stderr.trim().split('\n'), text).toHaveLength(1)
      expect(refused.stderr, text).toContain(`${file}: ${why}`)
      expect(refused.stdout).toBe('')
      const asJson = await drover(dir, ['start', '--json', '--', 'true'], {env: {DROVER_EXECUTOR: ''}})
      expect(asJson.exitCode, text).toBe(2)
      expect(json(asJson).error).toMatchObject({exitCode: 2, message: expect.stringContaining(`${file}: ${why}`)})
      // refused before the state dir was opened: not even tasks/ was made
      expect(readdirSync(dir)).toEqual(['config.json'])
    }
  })

  it('a bad one is not in the way of commands that do not start tasks', async () => {
    const dir = makeStateDir()
    writeFileSync(path.join(dir, 'config.json'), '{"executor": ')
    const listed = await drover(dir, ['list', '--json'])
    expect(listed.exitCode, listed.stderr).toBe(0)
    expect(json(listed)).toEqual([])
  })
})

describe("the library's Drover.start (and through it MCP's start_task)", () => {
  it('reads the same config.json: refused whole when bad, its executor taken when good', async () => {
    const dir = makeStateDir()
    const saved = process.env.DROVER_EXECUTOR
    delete process.env.DROVER_EXECUTOR
    try {
      const api = await openStateDir(dir)
      writeFileSync(path.join(dir, 'config.json'), '{"executor": "slurm", "slurm": {"cpus": -1}}')
      await expect(api.start({command: ['true']})).rejects.toMatchObject({exitCode: 2, message: `${path.join(dir, 'config.json')}: slurm.cpus must be a positive whole number`})
      expect(readdirSync(path.join(dir, 'tasks'))).toEqual([])
      writeFileSync(path.join(dir, 'config.json'), '{"executor": "local", "slurm": {"cpus": 4}}')
      const task = await api.start({command: ['true']})
      expect(task).toMatchObject({executor: 'local', jobId: null})
      expect(task.status).not.toBe('failed')
      // the option still wins over the file
      writeFileSync(path.join(dir, 'config.json'), '{"executor": "slurm"}')
      expect(await api.start({command: ['true'], executor: 'local'})).toMatchObject({executor: 'local'})
    } finally {
      if (saved !== undefined) process.env.DROVER_EXECUTOR = saved
    }
  })
})
