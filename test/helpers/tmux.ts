// A real terminal for the tests of `drover top` and of shell completion: tmux
// on a private socket per test (never the user's server), keys sent as a
// person types them, and the screen read back as text (capture-pane). For
// top, a shell in the pane runs it and then says how it ended and whether the
// tty is cooked again. kill() ends the server and everything in it.

import {execFileSync} from 'node:child_process'
import path from 'node:path'
import {BIN, makeTempDir, waitFor} from './cli.js'

export interface TopSession extends Pane {
  /** the screen with its escape sequences (colours, reverse video). */
  screenWithEscapes(): string
  resize(width: number, height: number): void
  /** a tmux format of the pane: '#{alternate_on}', '#{cursor_flag}'. */
  format(name: string): string
  /** pid of drover top itself (the pane's shell's child). */
  topPid(): number
}

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** A tmux pane on a private socket: what every terminal test needs of it. */
export interface Pane {
  /** the screen as text, one line per row (trailing spaces dropped by tmux). */
  screen(): string
  keys(...keys: string[]): void
  /** text typed literally (no key names). */
  type(text: string): void
  /** waits until the screen matches; fails with the last screen. */
  waitFor(match: RegExp | ((screen: string) => boolean), timeout?: number): Promise<string>
  kill(): void
  /** runs a tmux command on this pane's server. */
  tmux(...args: string[]): string
}

/** Opens a `width`×`height` tmux session named `name` running `argv` (one word: a shell command line). */
export function openPane(name: string, argv: string[], opts: {width?: number; height?: number} = {}): Pane {
  const socket = path.join(makeTempDir('drover-tmux-'), 'tmux.sock')
  const tmux = (...a: string[]) => execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...a], {encoding: 'utf8', env: {...process.env, TMUX: ''}})
  tmux('new-session', '-d', '-s', name, '-x', String(opts.width ?? 120), '-y', String(opts.height ?? 30), ...argv)
  const pane: Pane = {
    screen: () => tmux('capture-pane', '-p', '-t', name),
    keys: (...keys) => void tmux('send-keys', '-t', name, ...keys),
    type: (text) => void tmux('send-keys', '-t', name, '-l', text),
    async waitFor(match, timeout = 15_000) {
      const test = typeof match === 'function' ? match : (s: string) => match.test(s)
      let last = ''
      try {
        return await waitFor(
          () => {
            last = pane.screen()
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
    tmux,
  }
  return pane
}

/**
 * Opens a `width`×`height` tmux window running `drover top …args`. The pane's
 * shell prints TOP-BEFORE first, then after top `TOP-EXIT <code>` and the
 * tty's canonical-mode and echo flags as `stty -a` shows them.
 */
export function openTop(stateDir: string, args: string[], opts: {width?: number; height?: number; env?: Record<string, string>; nodeArgs?: string[]} = {}): TopSession {
  const env = {DROVER_STATE_DIR: stateDir, NO_COLOR: '1', TERM: 'xterm-256color', ...opts.env}
  const exports = Object.entries(env)
    .map(([k, v]) => `${k}=${sh(v)}`)
    .join(' ')
  const script = `echo TOP-BEFORE; env ${exports} ${sh(process.execPath)} ${(opts.nodeArgs ?? []).map(sh).join(' ')} ${sh(BIN)} top ${args.map(sh).join(' ')}; echo "TOP-EXIT $?"; stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)$' | tr '\\n' ' '; echo; sleep 600`
  const pane = openPane('top', ['sh', '-c', script], opts)
  const {tmux} = pane
  // the window follows resize-window from now on, not the (absent) client's size
  tmux('set-option', '-t', 'top', 'window-size', 'manual')
  const session: TopSession = {
    ...pane,
    screenWithEscapes: () => tmux('capture-pane', '-p', '-e', '-t', 'top'),
    resize: (width, height) => void tmux('resize-window', '-t', 'top', '-x', String(width), '-y', String(height)),
    format: (name) => tmux('display-message', '-p', '-t', 'top', name).trim(),
    topPid: () => {
      const shell = Number(session.format('#{pane_pid}'))
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(shell)], {encoding: 'utf8'}).trim().split(/\s+/).map(Number)
      return children[0]
    },
  }
  return session
}
