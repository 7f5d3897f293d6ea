// Issue 11, finding 6, against the real claude and codex: after a reboot
// (runner and agent killed), `resume --interrupted` from a cron-like
// environment (env -i, PATH=/usr/bin:/bin) runs each task again with the
// program and PATH recorded at start; a resume that cannot launch is said on
// stderr and tried again by the next `resume --interrupted`.

import {execa} from 'execa'
import {renameSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, readTask} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {AGENTS, type RealAgent} from './harness/real-agents.js'
import {agentLinks, cleanupTasks, reboot, sessionIdOf, sessionSaved, settled, start, stateDir, waitForRequest, useFakeServers} from './harness/tasks.js'

const serverOf = useFakeServers()

/** `drover resume --interrupted` as an @reboot crontab line runs it: nothing of the caller's environment. */
async function cronResume(dir: string, home: string): Promise<{exitCode: number; stderr: string}> {
  const r = await execa('env', ['-i', 'PATH=/usr/bin:/bin', `HOME=${home}`, `DROVER_STATE_DIR=${dir}`, process.execPath, BIN, 'resume', '--interrupted'], {
    reject: false,
    timeout: 60_000,
  })
  return {exitCode: r.exitCode ?? -1, stderr: String(r.stderr)}
}

describe.each(AGENTS)('finding 6: $kind resumed from cron', (agent: RealAgent) => {
  it('runs again with the recorded program and PATH; a resume that cannot launch is retried by the next one', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const base = agent.env(server)
    // The agents reachable only through a PATH entry of this start.
    const bin = agentLinks()
    const env = {...base, PATH: `${bin}${path.delimiter}${base.PATH}`}
    // What the agent needs besides PATH and HOME goes with the task (-e): cron gives nothing else.
    const vars = Object.entries(base).filter(([key]) => key !== 'PATH' && key !== 'HOME')
    const flags = vars.flatMap(([key, value]) => ['-e', `${key}=${value}`])
    const [workA, workB] = [agentTempDir('drover-work-a-'), agentTempDir('drover-work-b-')]
    const a = await start(dir, env, agent.command('f6 task a [[slow: 60]]'), workA, flags)
    const b = await start(dir, env, agent.command('f6 task b [[slow: 60]]'), workB, flags)
    for (const [id, prompt] of [[a, 'f6 task a'], [b, 'f6 task b']] as const) {
      await waitForRequest(server, prompt)
      // a kill before the agent saved its session would leave nothing to resume
      await sessionSaved(env.HOME, await sessionIdOf(dir, id), prompt)
      await reboot(dir, id)
    }

    // 1. B's working directory is missing. A runs again to success with the program
    //    and PATH of its start; B cannot launch, and is left failed but meant to run.
    //    (A comes first and learns the agent's grammar; B's resume reuses it.)
    renameSync(workB, `${workB}.away`)
    const first = await cronResume(dir, env.HOME)
    expect(first.exitCode).toBe(1)
    expect(first.stderr).toContain(`task ${b} failed to resume`)
    const resumedA = await settled(dir, a, env)
    expect(resumedA, JSON.stringify(resumedA)).toMatchObject({status: 'succeeded', run: 2})
    expect(JSON.stringify(server.modelRequests('Continue from where you left off.')[0].body)).toContain('f6 task a [[slow: 60]]')
    const program = path.join(bin, agent.kind)
    expect(resumedA.runs[1].command[0]).toBe(program)
    expect(readTask(dir, b)).toMatchObject({status: 'failed', desired: 'running', worker: null, runs: [expect.anything(), expect.anything()]})

    // 2. The directory is back, but the program is gone: B is refused on stderr, and still meant to run.
    renameSync(`${workB}.away`, workB)
    renameSync(program, `${program}.away`)
    const second = await cronResume(dir, env.HOME)
    expect(second.exitCode).not.toBe(0)
    expect(second.stderr).toContain(`task ${b}`)
    expect(second.stderr).not.toContain(`task ${a}`)
    expect(readTask(dir, b)).toMatchObject({status: 'failed', desired: 'running', runs: [expect.anything(), expect.anything()]})

    // 3. With the program back, the next cron run picks B up; A is left alone.
    renameSync(`${program}.away`, program)
    const third = await cronResume(dir, env.HOME)
    expect(third.exitCode, third.stderr).toBe(0)
    const resumedB = await settled(dir, b, env)
    expect(resumedB, JSON.stringify(resumedB)).toMatchObject({status: 'succeeded', run: 3})
    expect(readTask(dir, a).runs).toHaveLength(2)
    expect(server.modelRequests('Continue from where you left off.').map((r) => JSON.stringify(r.body))).toEqual([
      expect.stringContaining('f6 task a'),
      expect.stringContaining('f6 task b'),
    ])
  })
})
