// What --notify takes, and how a target shows in views: a webhook's path and
// credentials are its secret, so only the origin shows.

import {describe, expect, it} from 'vitest'
import {maskNotifyTarget, notifyLabel, notifyTargetProblem} from '../../src/base/notify-target.js'

describe('notify targets', () => {
  it('takes desktop and http(s) URLs, refuses the rest with one line', () => {
    for (const ok of ['desktop', 'https://hooks.slack.com/services/T/B/X', 'http://127.0.0.1:8080/hook']) expect(notifyTargetProblem(ok), ok).toBeNull()
    expect(notifyTargetProblem('mailto:me@example.com')).toBe('--notify takes an http(s) URL or "desktop", not a mailto: URL')
    expect(notifyTargetProblem('Desktop')).toBe('--notify takes an http(s) URL or "desktop", not "Desktop"')
  })

  it('shows a URL by its origin alone: no path, query or credentials', () => {
    expect(maskNotifyTarget('https://hooks.slack.com/services/T0/B0/secret')).toBe('https://hooks.slack.com/…')
    expect(maskNotifyTarget('https://user:pw@ntfy.example.com/topic?auth=x')).toBe('https://ntfy.example.com/…')
    expect(maskNotifyTarget('http://127.0.0.1:9000/')).toBe('http://127.0.0.1:9000')
    expect(maskNotifyTarget('desktop')).toBe('desktop')
    expect(notifyLabel('https://discord.com/api/webhooks/1/2/slack')).toBe('notify https://discord.com/…')
  })
})
