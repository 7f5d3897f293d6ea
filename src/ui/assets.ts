// What the browser loads, all of it from the package: one HTML shell, one
// stylesheet, and the page's scripts (src/ui/client, compiled by the build
// like the rest, with the DOM's types). No CDN, no inline script or style,
// so the Content-Security-Policy can forbid both.

import {readFile} from 'node:fs/promises'
import {AGENT_NAMES, FINAL_STATUSES, TASK_STATUSES} from '../api/values.js'
import {HttpError} from './http.js'
import {STYLE} from './style.js'

const CLIENT_DIR = new URL('./client/', import.meta.url)

export interface Asset {
  type: string
  read: () => Promise<string | Buffer>
}

/** `/assets/style.css` and `/assets/<module>.js` from the compiled client; nothing else. */
export function assetFile(path: string): Asset | null {
  if (path === '/assets/style.css') return {type: 'text/css; charset=utf-8', read: async () => STYLE}
  const script = /^\/assets\/([a-z][a-z-]*)\.js$/.exec(path)
  if (!script) return null
  return {
    type: 'text/javascript; charset=utf-8',
    read: () =>
      readFile(new URL(`${script[1]}.js`, CLIENT_DIR)).catch(() => {
        throw new HttpError(404, 'not found')
      }),
  }
}

const escapeAttr = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The one page: the script reads the path and draws the list or a task. */
export function pageHtml(opts: {csrf: string; readOnly: boolean}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="drover-csrf" content="${escapeAttr(opts.csrf)}">
<meta name="drover-read-only" content="${opts.readOnly ? 'true' : 'false'}">
<meta name="drover-statuses" content="${TASK_STATUSES.join(',')}">
<meta name="drover-final-statuses" content="${FINAL_STATUSES.join(',')}">
<meta name="drover-agents" content="${AGENT_NAMES.join(',')}">
<title>drover</title>
<link rel="stylesheet" href="/assets/style.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<header><a href="/" class="brand">drover</a><nav><a href="/">tasks</a> <a href="/queues">queues</a></nav><span id="mode">${opts.readOnly ? 'read-only' : ''}</span><span id="live" class="live">connecting…</span></header>
<main id="main"></main>
</body>
</html>
`
}
