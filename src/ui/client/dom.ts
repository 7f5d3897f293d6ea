// Building the page. Text always goes in as text nodes (never innerHTML), so
// whatever a task prints or is named shows as written and runs nothing.

type Child = Node | string | null | undefined | false

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: {className?: string; attrs?: Record<string, string>; on?: Partial<Record<keyof HTMLElementEventMap, (event: Event) => void>>} = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (props.className) node.className = props.className
  for (const [name, value] of Object.entries(props.attrs ?? {})) node.setAttribute(name, value)
  for (const [name, handler] of Object.entries(props.on ?? {})) node.addEventListener(name, handler as EventListener)
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child)
  return node
}

/** replaceChildren that skips the children left out (null, false). */
export function setChildren(node: Element, ...children: Child[]): void {
  node.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false))
}

export function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? ''
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return ''
  const s = Math.floor(ms / 1000)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

export const formatCost = (usd: number | null | undefined) => (usd === null || usd === undefined ? '' : `$${usd.toFixed(4)}`)
export const formatCount = (n: number | null | undefined) => (n === null || n === undefined ? '' : n.toLocaleString('en'))

const two = (n: number) => String(n).padStart(2, '0')
/** 14:03:07, local and 24-hour whatever the browser's locale (as `drover list` writes it). */
export const clockTime = (date: Date) => `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`

/** The time of day for today, else the date and minute: the style of `drover list`, 24-hour. */
export function formatTime(iso: string | null): string {
  if (!iso) return ''
  const date = new Date(iso)
  if (date.toDateString() === new Date().toDateString()) return clockTime(date)
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`
}

/** How long a task has run: to its end, or to now while it runs. */
export function runtimeOf(task: {startedAt: string | null; endedAt: string | null}): number | null {
  if (!task.startedAt) return null
  return Math.max(0, (task.endedAt ? Date.parse(task.endedAt) : Date.now()) - Date.parse(task.startedAt))
}
