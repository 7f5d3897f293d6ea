// The desktop notification of each OS, with the platform injected: the text
// travels in the environment, so no title or body can break out of the
// AppleScript or PowerShell it is shown by.

import {describe, expect, it} from 'vitest'
import {desktopNotifier, NOTIFY_BODY_VAR, NOTIFY_TITLE_VAR} from '../../src/platform/desktop-notify.js'

const on = (os: string) => ({os, run: () => ''})
const title = 'drover: failed'
const body = `task 3 ("it's" $(rm -rf ~) \`x\`) failed`

describe('desktopNotifier', () => {
  it('Linux and the rest: notify-send with the text as its arguments, after --', () => {
    for (const os of ['linux', 'freebsd']) {
      expect(desktopNotifier(title, body, on(os))).toEqual({argv: ['notify-send', '--app-name=drover', '--', title, body], env: {[NOTIFY_TITLE_VAR]: title, [NOTIFY_BODY_VAR]: body}})
    }
  })

  it('macOS: osascript reads the text from the environment', () => {
    const shown = desktopNotifier(title, body, on('darwin'))
    expect(shown.argv).toEqual(['osascript', '-e', `display notification (system attribute "${NOTIFY_BODY_VAR}") with title (system attribute "${NOTIFY_TITLE_VAR}")`])
    expect(shown.env).toEqual({[NOTIFY_TITLE_VAR]: title, [NOTIFY_BODY_VAR]: body})
    expect(shown.argv.join(' ')).not.toContain(body)
  })

  it('Windows: a toast through PowerShell, the text from $env', () => {
    const shown = desktopNotifier(title, body, on('win32'))
    expect(shown.argv.slice(0, 6)).toEqual(['powershell.exe', '-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-Command'])
    const script = shown.argv[6]
    expect(script).toContain('ToastNotificationManager')
    expect(script).toContain(`$env:${NOTIFY_TITLE_VAR}`)
    expect(script).toContain(`$env:${NOTIFY_BODY_VAR}`)
    expect(script).not.toContain(body)
    expect(shown.env[NOTIFY_BODY_VAR]).toBe(body)
  })
})
