// The items of a transcript, as a person reads an agent's run: the assistant's
// text, each tool call with its arguments in short, the tool's result, errors,
// and the run's end with cost and turns. Each agent's profile turns its own
// events into these; rendering is the front-end's.

import {obj, str} from './json.js'

export type TranscriptItem =
  /** session start: the session or thread id, and what else the agent says about itself. */
  | {kind: 'session'; text: string}
  | {kind: 'text'; text: string}
  /** the model's reasoning, when the agent shows it. */
  | {kind: 'thinking'; text: string}
  | {kind: 'tool'; name: string; args: string}
  | {kind: 'result'; text: string; isError: boolean}
  | {kind: 'error'; text: string}
  /** the end of a run (claude's result) or of a turn (codex): cost, turns, tokens, time. */
  | {kind: 'final'; ok: boolean; text: string; costUsd: number | null; turns: number | null; tokens: number | null; durationMs: number | null}
  /** a line that is no event of the agent: its stderr, drover's separators. */
  | {kind: 'plain'; text: string}

/** A tool's input in one short line: the one argument that says what it does, else compact JSON. */
export function shortArgs(input: unknown, max = 120): string {
  const o = obj(input)
  const telling = o && (str(o.command) ?? str(o.file_path) ?? str(o.filePath) ?? str(o.path) ?? str(o.pattern) ?? str(o.url) ?? str(o.query) ?? str(o.description))
  const text = telling ?? (input === undefined ? '' : typeof input === 'string' ? input : JSON.stringify(input))
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
