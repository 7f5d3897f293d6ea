// An agent task's turns, tokens and cost as they grew, turn by turn, read
// back from its own event stream in output.log: the record keeps only the
// totals, and the stream carries no clock, so the series is by turn. Every
// run is read with the reader the runner uses (agents/events.ts), and the
// runs are added up, so a resumed session's chart carries on where it was.

import {createReadStream} from 'node:fs'
import {createInterface} from 'node:readline'
import {AgentEventReader} from '../agents/events.js'
import {readsAgentEvents} from '../agents/registry.js'
import type {AgentUsage, TaskRecord} from '../state/record.js'
import {taskPaths} from '../state/store.js'

export interface UsagePoint extends AgentUsage {
  /** the run the turn belongs to. */
  run: number
}

/** At most this many points: a longer series keeps every n-th, and the last. */
const MAX_POINTS = 500

export async function usageSeries(stateDir: string, record: TaskRecord): Promise<UsagePoint[]> {
  if (!readsAgentEvents(record.agent)) return []
  const starts = record.runs.map((run) => run.outputOffset)
  const points: UsagePoint[] = []
  const carried: AgentUsage = {turns: 0, costUsd: null, inputTokens: null, outputTokens: null}
  let runIndex = 0
  let reader = new AgentEventReader(record.agent, null, null)
  let offset = 0
  let lastKey = ''
  const endRun = () => {
    const u = reader.current()
    carried.turns += u.turns
    carried.costUsd = add(carried.costUsd, u.costUsd)
    carried.inputTokens = add(carried.inputTokens, u.inputTokens)
    carried.outputTokens = add(carried.outputTokens, u.outputTokens)
  }
  let input: NodeJS.ReadableStream
  try {
    input = createReadStream(taskPaths(stateDir, record.id).output)
  } catch {
    return []
  }
  const lines = createInterface({input, crlfDelay: Infinity})
  try {
    for await (const line of lines) {
      // a new run's output begins here: its events belong to a new reader
      while (runIndex + 1 < starts.length && starts[runIndex + 1] !== null && offset >= starts[runIndex + 1]!) {
        endRun()
        runIndex++
        // claude reports the session's cost across resumes: the reader takes what came before off it
        reader = new AgentEventReader(record.agent, {...carried}, null)
      }
      offset += Buffer.byteLength(line) + 1
      if (!reader.fold(line)) continue
      const u = reader.current()
      const point: UsagePoint = {
        run: runIndex + 1,
        turns: carried.turns + u.turns,
        costUsd: add(carried.costUsd, u.costUsd),
        inputTokens: add(carried.inputTokens, u.inputTokens),
        outputTokens: add(carried.outputTokens, u.outputTokens),
      }
      const key = `${point.turns} ${point.costUsd} ${point.inputTokens} ${point.outputTokens}`
      if (key === lastKey) continue
      lastKey = key
      // one point per turn: the latest figures of that turn
      if (points.length > 0 && points[points.length - 1].turns === point.turns) points[points.length - 1] = point
      else points.push(point)
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  return thin(points)
}

function add(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0)
}

function thin(points: UsagePoint[]): UsagePoint[] {
  if (points.length <= MAX_POINTS) return points
  const step = Math.ceil(points.length / MAX_POINTS)
  return points.filter((_, i) => i % step === 0 || i === points.length - 1)
}
