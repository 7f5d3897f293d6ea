// The suite's safety net: real agents may only ever see loopback. The runner
// (scripts/test-agents.mjs) starts vitest in a network namespace of its own;
// this check makes every agents test file fail, not skip, when it was started
// any other way and a real network interface is up.
//
// It asks the kernel over netlink (`ip -o link show up`) rather than reading
// /sys/class/net: sysfs shows the interfaces of the namespace it was mounted
// in, so inside `unshare -n` it still lists the host's eth0.

import {execFileSync} from 'node:child_process'
import os from 'node:os'

/** Interface names, other than loopback, in `ip -o link show up` output. */
export function nonLoopbackInOutput(ipOutput: string): string[] {
  const names: string[] = []
  for (const line of ipOutput.split('\n')) {
    const match = /^\d+:\s+([^:@\s]+)(?:@[^:]*)?:\s+<([^>]*)>/.exec(line)
    if (!match) continue
    const flags = match[2].split(',')
    if (!flags.includes('LOOPBACK') && flags.includes('UP')) names.push(match[1])
  }
  return names
}

/** Interfaces other than loopback that are up in this process's network namespace. */
export function nonLoopbackUp(): string[] {
  let output: string
  try {
    output = execFileSync('ip', ['-o', 'link', 'show', 'up'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
  } catch (error) {
    throw new Error(`cannot list network interfaces with ip (iproute2): ${(error as Error).message}`)
  }
  const up = new Set(nonLoopbackInOutput(output))
  // A second, independent look: any address that is not loopback.
  for (const [name, addresses] of Object.entries(os.networkInterfaces())) {
    if (addresses?.some((a) => !a.internal)) up.add(name)
  }
  return [...up]
}

export function assertLoopbackOnly(): void {
  if (process.platform !== 'linux') {
    throw new Error('the agents suite runs only on Linux, inside a loopback-only network namespace: use node scripts/test-agents.mjs')
  }
  const up = nonLoopbackUp()
  if (up.length > 0) {
    throw new Error(
      `refusing to run real agents with network interfaces up (${up.join(', ')}): run the suite through node scripts/test-agents.mjs, which gives it a loopback-only network namespace`,
    )
  }
}
