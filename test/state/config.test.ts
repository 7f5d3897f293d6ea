// The state dir's config.json: optional, read as written by hand, checked
// whole — every way it can be wrong is one exit-2 error naming the file.

import {mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {configPath, readStateConfig} from '../../src/state/config.js'
import {posixOnly} from '../helpers/skips.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function stateDir(config?: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-config-'))
  dirs.push(dir)
  if (config !== undefined) writeFileSync(configPath(dir), config)
  return dir
}

function refusal(dir: string): {code?: number; message: string} {
  try {
    readStateConfig(dir)
  } catch (error) {
    return {code: (error as {exitCode?: number}).exitCode, message: (error as Error).message}
  }
  throw new Error('accepted')
}

describe("a state dir's config.json", () => {
  it('is optional: none, or no state dir yet, is no defaults', () => {
    expect(readStateConfig(stateDir())).toEqual({})
    expect(readStateConfig(path.join(stateDir(), 'not-made-yet'))).toEqual({})
  })

  it("gives each agent's defaults as written (names and permission modes are the agents' business: agents/headless.ts)", () => {
    const agents = {claude: {model: 'sonnet', permissionMode: 'acceptEdits', flags: ['--max-turns', '30']}, someday: {flags: []}}
    const dir = stateDir(JSON.stringify({agents}))
    expect(readStateConfig(dir)).toEqual({agents, source: configPath(dir)})
  })

  it('gives the check of new worktree tasks as written', () => {
    const dir = stateDir(JSON.stringify({check: 'npm test -- --bail'}))
    expect(readStateConfig(dir)).toEqual({check: 'npm test -- --bail', source: configPath(dir)})
  })

  it('gives the executor and Slurm defaults as written, and says where they came from', () => {
    const text = JSON.stringify({executor: 'slurm', slurm: {partition: 'gpu', time: '4:00:00', cpus: 4, mem: '16G', drainBeforeLimit: '10m', opts: ['--account=lab']}})
    const dir = stateDir(text)
    expect(readStateConfig(dir)).toEqual({...JSON.parse(text), source: configPath(dir)})
    expect(readStateConfig(stateDir('{}'))).toMatchObject({})
  })

  it('is refused, exit 2 and the file named, when it is not a config', () => {
    const cases: [string, RegExp][] = [
      ['{"executor": ', /not valid JSON/],
      ['[]', /must be a JSON object/],
      ['{"exector": "slurm"}', /unknown key 'exector'/],
      ['{"executor": "k8s"}', /executor must be "local" or "slurm", not "k8s"/],
      ['{"executor": 1}', /executor must be/],
      ['{"slurm": "gpu"}', /slurm must be an object/],
      ['{"slurm": {"partion": "gpu"}}', /unknown key 'slurm.partion'/],
      ['{"slurm": {"partition": 3}}', /slurm.partition must be a non-empty string/],
      ['{"slurm": {"cpus": 0}}', /slurm.cpus must be a positive whole number/],
      ['{"slurm": {"cpus": "4"}}', /slurm.cpus must be a positive whole number/],
      ['{"slurm": {"opts": "--account=lab"}}', /slurm.opts must be an array/],
      ['{"agents": []}', /agents must be an object by agent name/],
      ['{"agents": {"claude": "sonnet"}}', /agents.claude must be an object/],
      ['{"agents": {"claude": {"modle": "sonnet"}}}', /unknown key 'agents.claude.modle'/],
      ['{"agents": {"claude": {"model": ""}}}', /agents.claude.model must be a non-empty string/],
      ['{"agents": {"claude": {"permissionMode": 1}}}', /agents.claude.permissionMode must be a non-empty string/],
      ['{"agents": {"codex": {"flags": "--json"}}}', /agents.codex.flags must be an array/],
      ['{"agents": {"codex": {"flags": ["--x", 1]}}}', /agents.codex.flags must be an array/],
      ['{"agents": {"codex": {"flags": ["resume", "--last"]}}}', /agents.codex.flags must start with a flag, not 'resume'/],
      ['{"check": ["npm", "test"]}', /check must be a shell command, e.g. "npm test"/],
      ['{"check": " "}', /check must be a shell command/],
    ]
    for (const [text, why] of cases) {
      const dir = stateDir(text)
      const refused = refusal(dir)
      expect(refused.code, text).toBe(2)
      expect(refused.message, text).toMatch(why)
      expect(refused.message.startsWith(`${configPath(dir)}: `), text).toBe(true)
      expect(refused.message, text).not.toContain('\n')
    }
  })

  posixOnly('symlinks').it('is never followed through a link, nor read when it is a directory', () => {
    const dir = stateDir()
    const elsewhere = path.join(stateDir(), 'theirs.json')
    writeFileSync(elsewhere, '{"executor": "slurm"}')
    symlinkSync(elsewhere, configPath(dir))
    expect(refusal(dir)).toMatchObject({code: 2, message: expect.stringMatching(/not a regular file/)})
    const other = stateDir()
    mkdirSync(configPath(other))
    expect(refusal(other)).toMatchObject({code: 2, message: expect.stringMatching(/not a regular file/)})
  })
})
