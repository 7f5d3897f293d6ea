// A command in a real pseudo-terminal, for the `top` bench: util-linux's
// `script` makes the pty (no native module), sizes it with stty, copies what
// we write into it as keystrokes and what the program draws back to us.
// waitFor(pattern) resolves when the program has written bytes matching it
// since the last mark() — the moment a key's effect reached the terminal.

import {spawn} from 'node:child_process'
import {childrenOf, kill} from './util.mjs'

export function openPty(argv, {env, cols = 120, rows = 32}) {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const child = spawn('script', ['-qfec', `stty cols ${cols} rows ${rows}; exec ${quoted}`, '/dev/null'], {env: {TERM: 'xterm-256color', ...env}, stdio: ['pipe', 'pipe', 'ignore']})
  let seen = ''
  let waiter = null
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (data) => {
    // keep only a tail: a flood of output must not grow this without end
    seen = (seen + data).slice(-256 * 1024)
    if (waiter && waiter.pattern.test(seen)) {
      const {resolve} = waiter
      waiter = null
      resolve(performance.now())
    }
  })
  return {
    /** the program itself: the child of script's shell (exec'd in place of it). */
    pid() {
      const shell = childrenOf(child.pid)[0]
      return shell
    },
    write: (text) => child.stdin.write(text),
    /** forgets what was drawn so far: waitFor looks only at what comes after. */
    mark() {
      seen = ''
    },
    waitFor(pattern, timeout = 10_000) {
      if (pattern.test(seen)) return Promise.resolve(performance.now())
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = null
          reject(new Error(`the terminal never showed ${pattern} (last: ${JSON.stringify(seen.slice(-300))})`))
        }, timeout)
        waiter = {pattern, resolve: (t) => (clearTimeout(timer), resolve(t))}
      })
    },
    close() {
      const pid = childrenOf(child.pid)[0]
      if (pid) kill(pid, 'SIGTERM')
      kill(child.pid, 'SIGTERM')
    },
  }
}
