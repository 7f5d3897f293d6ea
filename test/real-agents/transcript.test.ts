// logs --pretty over the real claude and codex (their stream formats from the
// real binaries, offline against the fake model servers).

import {describe, expect, it} from 'vitest'
import {drover} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {AGENTS} from './harness/real-agents.js'
import {settled, start, stateDir, useFakeServers} from './harness/tasks.js'

describe('logs --pretty over the real agents', () => {
  const serverOf = useFakeServers()

  for (const agent of AGENTS) {
    it(`${agent.kind}: the session, the tool call, its result and the end, in order`, async () => {
      const server = serverOf(agent)
      const dir = stateDir()
      const env = agent.env(server)
      const id = await start(dir, env, agent.command('pretty test [[tool: echo pretty-output-line]]'), agentTempDir('drover-work-'))
      expect((await settled(dir, id, env)).status).toBe('succeeded')
      const pretty = await drover(dir, ['logs', '--pretty', String(id)], {env})
      expect(pretty.exitCode).toBe(0)
      const lines = pretty.stdout.split('\n')
      const at = (re: RegExp) => lines.findIndex((l) => re.test(l))
      const session = at(agent.kind === 'claude' ? /^● session [0-9a-f-]{36} \(model / : /^● thread [0-9a-f-]{36}$/)
      const tool = at(agent.kind === 'claude' ? /^→ Bash echo pretty-output-line$/ : /^→ shell .*echo pretty-output-line/)
      const result = at(/^ {2}⎿ pretty-output-line$/)
      const end = at(agent.kind === 'claude' ? /^✔ done · \$\d+\.\d{4} · \d+ turns? · \d+ tokens · [\d.]+ s$/ : /^✔ turn completed · \d+ tokens$/)
      expect([session, tool, result, end].every((i) => i >= 0), pretty.stdout).toBe(true)
      expect(session < tool && tool < result && result < end).toBe(true)
      expect(pretty.stdout).not.toContain('{"type"')
      // --raw is the stream itself
      const raw = await drover(dir, ['logs', '--raw', String(id)], {env})
      expect(raw.stdout.split('\n').filter((l) => l.startsWith('{')).length).toBeGreaterThan(3)
    })
  }
})
