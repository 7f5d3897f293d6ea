// The desktop notification of each OS (`start --notify desktop`): notify-send
// (libnotify) on Linux and the BSDs, AppleScript's `display notification`
// through osascript on macOS, a toast through PowerShell on Windows. The
// text goes in the environment, never in the script: a task's name or reason
// holds whatever its user or agent wrote, and no quoting of it is then needed
// for AppleScript or PowerShell.

import {currentPlatform, type PlatformContext} from './platform.js'

/** A program to run for one notification, and what it adds to the environment. */
export interface DesktopNotifier {
  argv: string[]
  env: Record<string, string>
}

export const NOTIFY_TITLE_VAR = 'DROVER_NOTIFY_TITLE'
export const NOTIFY_BODY_VAR = 'DROVER_NOTIFY_BODY'

// Windows shows toasts only for an app it knows: PowerShell's own id is one
// that every Windows 10 and 11 has registered.
const POWERSHELL_APP_ID = '{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\\WindowsPowerShell\\v1.0\\powershell.exe'

const TOAST_SCRIPT = [
  '$ErrorActionPreference = "Stop"',
  '[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime] > $null',
  '$xml = [Windows.UI.Notifications.ToastNotificationManager]::GetTemplateContent([Windows.UI.Notifications.ToastTemplateType]::ToastText02)',
  '$text = $xml.GetElementsByTagName("text")',
  `$text.Item(0).AppendChild($xml.CreateTextNode($env:${NOTIFY_TITLE_VAR})) > $null`,
  `$text.Item(1).AppendChild($xml.CreateTextNode($env:${NOTIFY_BODY_VAR})) > $null`,
  `[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier('${POWERSHELL_APP_ID}').Show([Windows.UI.Notifications.ToastNotification]::new($xml))`,
].join('; ')

export function desktopNotifier(title: string, body: string, ctx: PlatformContext = currentPlatform()): DesktopNotifier {
  const env = {[NOTIFY_TITLE_VAR]: title, [NOTIFY_BODY_VAR]: body}
  if (ctx.os === 'darwin') {
    return {argv: ['osascript', '-e', `display notification (system attribute "${NOTIFY_BODY_VAR}") with title (system attribute "${NOTIFY_TITLE_VAR}")`], env}
  }
  if (ctx.os === 'win32') return {argv: ['powershell.exe', '-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-Command', TOAST_SCRIPT], env}
  // `--` so a title that starts with a dash is text, not an option
  return {argv: ['notify-send', '--app-name=drover', '--', title, body], env}
}
