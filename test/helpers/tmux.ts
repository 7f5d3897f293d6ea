// A real terminal for `drover top` tests: tmux on a private socket per test
// (never the user's server), a shell in the pane that runs top and then says
// how it ended and whether the tty is cooked again, keys sent as a person
// types them, and the screen read back as text (capture-pane). kill() ends
// the server and everything in it.

import {execFileSync} from 'node:child_process'
import path from 'node:path'
import {BIN, makeTempDir, waitFor} from './cli.js'

export interface TopSession {
  /** the screen as text, one line per row (trailing spaces dropped by tmux). */
  screen(): string
  /** the screen with its escape sequences (colours, reverse video). */
  screenWithEscapes(): string
  keys(...keys: string[]): void
  /** text typed literally (no key names). */
  type(text: string): void
  resize(width: number, height: number): void
  /** waits until the screen matches; fails with the last screen. */
  waitFor(match: RegExp | ((screen: string) => boolean), timeout?: number): Promise<string>
  /** a tmux format of the pane: '#{alternate_on}', '#{cursor_flag}'. */
  format(name: string): string
  /** pid of drover top itself (the pane's shell's child). */
  topPid(): number
  kill(): void
}

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * Opens a `width`×`height` tmux window running `drover top …args`. The pane's
 * shell prints TOP-BEFORE first, then after top `TOP-EXIT <code>` and the
 * tty's canonical-mode and echo flags as `stty -a` shows them.
 */
export function openTop(stateDir: string, args: string[], opts: {width?: number; height?: number; env?: Record<string, string>; nodeArgs?: string[]} = {}): TopSession {
  const dir = makeTempDir('drover-tmux-')
  const socket = path.join(dir, 'tmux.sock')
  const env = {DROVER_STATE_DIR: stateDir, NO_COLOR: '1', TERM: 'xterm-256color', ...opts.env}
  const exports = Object.entries(env)
    .map(([k, v]) => `${k}=${sh(v)}`)
    .join(' ')
  const script = `echo TOP-BEFORE; env ${exports} ${sh(process.execPath)} ${(opts.nodeArgs ?? []).map(sh).join(' ')} ${sh(BIN)} top ${args.map(sh).join(' ')}; echo "TOP-EXIT $?"; stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)$' | tr '\\n' ' '; echo; sleep 600`
  const tmux = (...a: string[]) => execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...a], {encoding: 'utf8', env: {...process.env, TMUX: ''}})
  tmux('new-session', '-d', '-s', 'top', '-x', String(opts.width ?? 120), '-y', String(opts.height ?? 30), 'sh', '-c', script)
  // the window follows resize-window from now on, not the (absent) client's size
  tmux('set-option', '-t', 'top', 'window-size', 'manual')
  const session: TopSession = {
    screen: () => tmux('capture-pane', '-p', '-t', 'top'),
    screenWithEscapes: () => tmux('capture-pane', '-p', '-e', '-t', 'top'),
    keys: (...keys) => void tmux('send-keys', '-t', 'top', ...keys),
    type: (text) => void tmux('send-keys', '-t', 'top', '-l', text),
    resize: (width, height) => void tmux('resize-window', '-t', 'top', '-x', String(width), '-y', String(height)),
    format: (name) => tmux('display-message', '-p', '-t', 'top', name).trim(),
    topPid: () => {
      const shell = Number(session.format('#{pane_pid}'))
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(shell)], {encoding: 'utf8'}).trim().split(/\s+/).map(Number)
      return children[0]
    },
    async waitFor(match, timeout = 15_000) {
      const test = typeof match === 'function' ? match : (s: string) => match.test(s)
      let last = ''
      try {
        return await waitFor(
          () => {
            last = session.screen()
            return test(last) ? last : null
          },
          {timeout, interval: 50},
        )
      } catch {
        throw new Error(`the screen never matched ${String(match)}; it showed:\n${last}`)
      }
    },
    kill: () => {
      try {
        tmux('kill-server')
      } catch {
        // gone already
      }
    },
  }
  return session
}
