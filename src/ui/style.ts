// The dashboard's stylesheet, served as /assets/style.css (no inline styles:
// the CSP forbids them). The 16 terminal colours are xterm's.

const TERMINAL_COLOURS = [
  '#000000', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5',
  '#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#ffffff',
]

export const STYLE = `
:root { color-scheme: light dark; --bg: #fafafa; --fg: #1d1d1f; --muted: #6b6b70; --line: #dddde3; --term: #15161a; --termfg: #e4e4e7; }
@media (prefers-color-scheme: dark) { :root { --bg: #1b1c20; --fg: #e8e8ea; --muted: #9a9aa2; --line: #34353b; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; gap: 1em; align-items: baseline; padding: .6em 1.2em; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; font-size: 1.1em; color: inherit; text-decoration: none; }
header .live { margin-left: auto; color: var(--muted); font-size: .9em; }
header .live.live::before { content: "● "; color: #0dbc79; }
header .live.reconnecting::before { content: "● "; color: #e5a50a; }
#mode { color: #bc3fbc; }
header nav { display: flex; gap: .8em; }
header nav a { color: var(--muted); text-decoration: none; }
header nav a[aria-current="page"] { color: var(--fg); font-weight: 600; }
main { padding: 1em 1.2em; }
a { color: #2472c8; }
table.tasks { border-collapse: collapse; width: 100%; }
table.tasks th, table.tasks td { text-align: left; padding: .35em .6em; border-bottom: 1px solid var(--line); white-space: nowrap; }
table.tasks td.command { white-space: normal; word-break: break-all; font-family: ui-monospace, monospace; font-size: .92em; }
table.tasks th { color: var(--muted); font-weight: 600; }
table.tasks.no-groups .group-name { display: none; }
.status-running .status, .status-starting .status, .badge.status-running, .badge.status-starting { color: #0f9d58; }
.status-failed .status, .status-lost .status, .badge.status-failed, .badge.status-lost { color: #d93025; }
.status-stopping .status, .status-draining .status, .status-drained .status, .badge.status-drained { color: #b07d00; }
.status-stopped .status, .status-cancelled .status { color: var(--muted); }
.filters { display: flex; gap: .6em; margin-bottom: .8em; }
input, select, textarea, button { font: inherit; padding: .3em .5em; border: 1px solid var(--line); border-radius: 4px; background: transparent; color: inherit; }
button { cursor: pointer; background: #2472c8; color: #fff; border: none; }
button[data-action="cancel"] { background: #d93025; }
.hint { color: var(--muted); }
.error { color: #d93025; }
details.start { margin-top: 1.5em; }
details.start form { display: grid; gap: .5em; max-width: 60em; margin-top: .5em; }
details.start .row { display: flex; gap: .5em; flex-wrap: wrap; }
h1 { font-size: 1.4em; margin: .2em 0; }
h1 .name { color: var(--muted); }
h2 { font-size: 1.05em; margin-top: 1.5em; }
dl.facts, dl.usage { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1em; margin: .6em 0; }
dl.usage { grid-template-columns: repeat(6, max-content); }
dt { color: var(--muted); }
dd { margin: 0; word-break: break-all; }
.actions { display: flex; gap: .5em; margin: .6em 0; }
.tabs { display: flex; gap: .3em; margin-top: 1em; }
.tabs button { background: var(--line); color: var(--fg); }
.tabs button[aria-pressed="true"] { background: #2472c8; color: #fff; }
pre.output { background: var(--term); color: var(--termfg); padding: .8em; margin: .4em 0; height: 60vh; overflow: auto; white-space: pre-wrap; word-break: break-all; font: 13px/1.4 ui-monospace, monospace; border-radius: 4px; contain: strict; }
pre.output .chunk { display: block; content-visibility: auto; contain-intrinsic-size: auto 20em; }
.output-view #earlier, .output-view #older-entries { background: var(--line); color: var(--fg); }
.usage-chart { margin: .4em 0; } .usage-chart figcaption { color: var(--muted); font-size: .9em; }
.key-tokens { color: #2472c8; } .key-cost { color: #d93025; }
.timeline { color: var(--muted); padding-left: 1.4em; }
.timeline .prompt { color: var(--fg); white-space: pre-wrap; overflow-wrap: anywhere; }
section.followups form { display: grid; gap: .4em; max-width: 60em; }
section.followups .row { display: flex; gap: 1em; flex-wrap: wrap; color: var(--muted); }
ol.followup-queue li { overflow-wrap: anywhere; margin: .2em 0; }
ol.followup-queue button { font-size: .85em; margin-left: .4em; background: var(--line); color: var(--fg); }
table.journal { border-collapse: collapse; font-size: .92em; }
table.journal td { padding: .15em .8em .15em 0; vertical-align: top; }
table.journal td.time, table.journal td.run { color: var(--muted); white-space: nowrap; }
table.journal td.event { font-weight: 600; white-space: nowrap; }
table.journal td.facts { font-family: ui-monospace, monospace; word-break: break-all; }
section.queue { margin-bottom: 1.6em; }
section.queue h2 .paused { color: #b07d00; font-weight: 400; }
section.queue dl.facts { grid-template-columns: repeat(6, max-content); }
table.tasks caption { text-align: left; color: var(--muted); padding: .4em 0 .2em; }
table.tasks tr.group th { padding-top: .9em; font-weight: 400; }
table.queue-tasks { table-layout: auto; }
.queue-actions input { width: 5em; }
details.start fieldset { border: 1px solid var(--line); border-radius: 4px; padding: .3em .6em .5em; margin: 0; }
details.start legend { color: var(--muted); padding: 0 .3em; }
/* A narrow window (600 px) never scrolls sideways: cells wrap, the least needed columns go, grids fold. */
@media (max-width: 720px) {
  header { flex-wrap: wrap; }
  main { padding: .8em .6em; }
  .filters, .actions { flex-wrap: wrap; }
  table.tasks th, table.tasks td { white-space: normal; overflow-wrap: anywhere; padding: .3em .35em; }
  #tasks th:nth-child(n+5):not(:last-child), #tasks td:nth-child(n+5):not(:last-child), table.tasks td.runtime { display: none; }
  dl.usage, section.queue dl.facts { grid-template-columns: max-content 1fr; }
  details.start input, details.start select { min-width: 0; flex: 1 1 10em; }
  pre.diff span { white-space: pre-wrap; overflow-wrap: anywhere; }
  table.journal td.event, table.journal td.time { white-space: normal; }
}
.worktree h2 button { font-size: .8em; margin-left: .6em; background: var(--line); color: var(--fg); }
pre.diff { background: var(--bg); border: 1px solid var(--line); padding: .6em 0; margin: .4em 0; max-height: 70vh; overflow: auto; font: 13px/1.4 ui-monospace, monospace; border-radius: 4px; }
pre.diff span { display: block; padding: 0 .8em; white-space: pre; }
.diff-file { font-weight: 700; background: rgba(127, 127, 127, .12); }
.diff-meta { color: var(--muted); }
.diff-hunk { color: #11a8cd; }
.diff-add { background: rgba(13, 188, 121, .16); color: #0a7d50; }
.diff-del { background: rgba(217, 48, 37, .14); color: #b3261e; }
@media (prefers-color-scheme: dark) { .diff-add { color: #5fd39d; } .diff-del { color: #f28b82; } }
.b { font-weight: 700; } .dim { opacity: .7; } .i { font-style: italic; } .u { text-decoration: underline; }
${TERMINAL_COLOURS.map((c, i) => `.fg-${i} { color: ${c}; } .bg-${i} { background: ${c}; }`).join('\n')}
`
