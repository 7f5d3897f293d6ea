// What `--notify` takes, checked where a start is checked and named where a
// target shows (events, views): `desktop`, or an http(s) URL. Apart from the
// sending (runner/notify.ts), so a start loads no HTTP client to check one.

export const DESKTOP_TARGET = 'desktop'

/** Whether a `--notify` value is one drover can send to: `desktop`, or an http(s) URL. */
export function notifyTargetProblem(target: string): string | null {
  if (target === DESKTOP_TARGET) return null
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return `--notify takes an http(s) URL or "desktop", not ${JSON.stringify(target)}`
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? null : `--notify takes an http(s) URL or "desktop", not a ${url.protocol} URL`
}

/** A target as views show it: a webhook URL's path is its secret (Slack's, Discord's), and so are credentials in it; only the origin shows. */
export function maskNotifyTarget(target: string): string {
  if (target === DESKTOP_TARGET) return target
  try {
    const url = new URL(target)
    return `${url.origin}${url.pathname === '/' && !url.search ? '' : '/…'}`
  } catch {
    return '…'
  }
}

/** How a target is named in events (`hook-failed` shows in status). */
export const notifyLabel = (target: string): string => `notify ${maskNotifyTarget(target)}`
