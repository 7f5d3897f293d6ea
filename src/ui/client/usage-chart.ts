// The small chart of an agent's tokens and cost turn by turn: two lines in an
// SVG, each scaled to its own maximum (tokens and dollars share no unit).
// Built with DOM calls and presentation attributes, which the CSP allows.

import {el, formatCost, formatCount} from './dom.js'

export interface UsagePoint {
  run: number
  turns: number
  costUsd: number | null
  inputTokens: number | null
  outputTokens: number | null
}

const SVG = 'http://www.w3.org/2000/svg'
const WIDTH = 480
const HEIGHT = 120
const PAD = 6

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag)
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value)
  return node
}

function line(points: UsagePoint[], value: (p: UsagePoint) => number | null, colour: string): SVGPolylineElement | null {
  const known = points.filter((p) => value(p) !== null)
  const max = Math.max(...known.map((p) => value(p)!))
  if (known.length === 0 || max <= 0) return null
  const maxTurn = Math.max(...points.map((p) => p.turns), 1)
  const xy = known.map((p) => `${(PAD + (p.turns / maxTurn) * (WIDTH - 2 * PAD)).toFixed(1)},${(HEIGHT - PAD - (value(p)! / max) * (HEIGHT - 2 * PAD)).toFixed(1)}`)
  return svg('polyline', {points: xy.join(' '), fill: 'none', stroke: colour, 'stroke-width': '2'})
}

/** The chart, or null when there is nothing to draw yet. */
export function usageChart(points: UsagePoint[]): HTMLElement | null {
  if (points.length < 2) return null
  const last = points[points.length - 1]
  const tokens = (p: UsagePoint) => (p.inputTokens === null && p.outputTokens === null ? null : (p.inputTokens ?? 0) + (p.outputTokens ?? 0))
  const chart = svg('svg', {viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: String(WIDTH), height: String(HEIGHT), role: 'img', 'aria-label': 'tokens and cost by turn'})
  chart.append(svg('rect', {x: '0', y: '0', width: String(WIDTH), height: String(HEIGHT), fill: 'none', stroke: 'currentColor', 'stroke-opacity': '0.2'}))
  const tokenLine = line(points, tokens, '#2472c8')
  const costLine = line(points, (p) => p.costUsd, '#d93025')
  if (tokenLine) chart.append(tokenLine)
  if (costLine) chart.append(costLine)
  return el(
    'figure',
    {className: 'usage-chart', attrs: {id: 'usage-chart'}},
    chart,
    el(
      'figcaption',
      {},
      el('span', {className: 'key-tokens'}, `tokens ${formatCount(tokens(last))}`),
      ' · ',
      el('span', {className: 'key-cost'}, `cost ${formatCost(last.costUsd) || '(not reported yet)'}`),
      ` · by turn, 1–${last.turns}`,
    ),
  )
}
