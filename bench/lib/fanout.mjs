// Fan-out: `start --agent claude:2,codex:2 --prompt P --worktree` until every
// attempt is recorded running, beside one `start --agent claude --prompt P
// --worktree` (the same work for one attempt: a worktree, a record, a runner).
// The attempts' records are made one after another (the names lock, git's
// worktree add) and their runners launched together, so the fan-out should
// take no more than N single starts, and less. The agents are two small Node
// programs named claude and codex that print an init event and wait: what is
// timed is drover's part. Samples are interleaved; each fan-out's group is
// cancelled and removed with its worktrees between samples, untimed.

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {row} from './report.mjs'
import {interleaved} from './cli-cases.mjs'
import {BIN, drover, envFor, makeTempDir, run, timed} from './util.mjs'

const N = 4
const ATTEMPTS = 'claude:2,codex:2'

/** A repository with one commit: where every attempt's worktree comes from. */
function makeRepo() {
  const repo = makeTempDir('fanout-repo')
  const git = (...args) => run('git', ['-C', repo, ...args], {env: {...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid'}})
  git('init', '-q', '-b', 'main')
  writeFileSync(path.join(repo, 'a.txt'), 'one\n')
  git('add', 'a.txt')
  git('commit', '-q', '-m', 'first')
  return repo
}

/** claude and codex as programs that print their first event and wait to be stopped. */
function agentsBin() {
  const bin = makeTempDir('fanout-bin')
  const body = (init) => `#!/usr/bin/env node\nprocess.stdout.write(${JSON.stringify(JSON.stringify(init))} + '\\n')\nsetInterval(() => {}, 1 << 30)\n`
  writeFileSync(path.join(bin, 'claude'), body({type: 'system', subtype: 'init', session_id: '00000000-0000-4000-8000-000000000000'}), {mode: 0o755})
  writeFileSync(path.join(bin, 'codex'), body({type: 'thread.started', thread_id: '00000000-0000-4000-8000-000000000001'}), {mode: 0o755})
  return bin
}

export async function fanout(ctx) {
  const repo = makeRepo()
  const bin = agentsBin()
  const env = {PATH: `${bin}${path.delimiter}${process.env.PATH}`}
  const single = ctx.dirs.fresh('fanout-one')
  const fanned = ctx.dirs.fresh('fanout-many')
  let n = 0
  // Each sample's tasks are ended and removed untimed, worktrees and branches too, so every sample starts alike.
  const clear = (stateDir, group) => {
    drover(stateDir, ['cancel', '--group', group], {env, cwd: repo, ok: [0, 1]})
    drover(stateDir, ['rm', '--group', group, '--discard'], {env, cwd: repo, ok: [0, 1, 4]})
  }
  const commands = {
    one: () => {
      const group = `one${++n}`
      const sample = timed(process.execPath, [BIN, 'start', '--agent', 'claude', '--prompt', 'fix it', '--worktree', '--group', group], {env: envFor(single, env), cwd: repo})
      clear(single, group)
      return {ms: sample.ms, cpuMs: sample.cpuMs}
    },
    many: () => {
      const group = `many${++n}`
      const sample = timed(process.execPath, [BIN, 'start', '--agent', ATTEMPTS, '--prompt', 'fix it', '--worktree', '--group', group, '--json'], {env: envFor(fanned, env), cwd: repo})
      const statuses = JSON.parse(sample.stdout).tasks.map((t) => t.status)
      if (statuses.length !== N || statuses.some((s) => s !== 'running')) throw new Error(`fan-out answered before all ran: ${statuses.join(', ')}`)
      clear(fanned, group)
      return {ms: sample.ms, cpuMs: sample.cpuMs}
    },
  }
  const s = await interleaved(commands, ctx.runs)
  const note = `${N} attempts (${ATTEMPTS}), each in a git worktree of its own; the agents print their first event and wait`
  return [
    row(`fan-out: \`start --agent ${ATTEMPTS} --prompt P --worktree\` until all ${N} running`, s.many.median, `${N} × one \`start --agent claude --prompt P --worktree\``, N * s.one.median, 'ms', {maxRatio: 1}, note),
    row('fan-out: beside one such start', s.many.median, 'one start', s.one.median, 'ms', null, note),
  ]
}
