// Noticing that the reader of our stdout went away while drover only waits —
// `drover logs -f 3 | head -1` on a task that prints nothing for an hour must
// still end at once. EPIPE (handled in bin/run.js) comes only with the next
// write; this covers the silence in between.
//
// Node cannot watch a write-only pipe for that: its pipe handle refuses to
// poll for reading, and a zero-byte write to a pipe never fails. GNU tail can:
// `tail -f` polls its own stdout and dies of SIGPIPE as soon as the reader is
// gone (coreutils 8.28 and later), so a tail sharing our stdout is the probe.
// It costs a small process only while following into a pipe; where tail is not
// GNU's (macOS, busybox) it fails at once on --pid and drover falls back to
// EPIPE on its next write.

import {spawn} from 'node:child_process'
import {fstatSync} from 'node:fs'

/** How often the probe looks: well under the 100 ms a closed pipe may take to end drover. */
const PROBE_INTERVAL_S = '0.05'

/** Starts watching stdout's reader; the process exits 141 (as killed by SIGPIPE) when it goes. Returns a stop function. */
export function exitWhenReaderLeaves(): () => void {
  if (process.platform === 'win32' || !isPipe(1)) return () => {}
  let probe: ReturnType<typeof spawn>
  try {
    // --pid: the probe ends by itself within an interval should drover be killed.
    probe = spawn('tail', ['-f', '-s', PROBE_INTERVAL_S, `--pid=${process.pid}`, '/dev/null'], {stdio: ['ignore', 1, 'ignore']})
  } catch {
    return () => {}
  }
  const stop = () => {
    probe.removeAllListeners('exit')
    probe.kill()
    process.removeListener('exit', stop)
  }
  probe.on('error', () => {})
  probe.once('exit', (_code, signal) => {
    if (signal === 'SIGPIPE') process.exit(141)
  })
  probe.unref()
  process.once('exit', stop)
  return stop
}

function isPipe(fd: number): boolean {
  try {
    const stats = fstatSync(fd)
    return stats.isFIFO() || stats.isSocket()
  } catch {
    return false
  }
}
