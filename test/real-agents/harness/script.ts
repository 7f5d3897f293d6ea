// What a fake model says next, decided the same way for both wire formats.
// Each server reduces a request to a `Turn` (the prompt that opened this turn,
// what came back last, how many tool calls so far); a test scripts replies by
// a marker in its prompt or by queueing replies on the server.
//
// Prompt markers (the last user prompt decides; earlier turns never do, so a
// resumed run's plain "continue" prompt gets a plain reply):
//   [[tool: CMD]]   one shell tool call running CMD, then a final text
//   [[loop: CMD]]   call the tool with CMD again after every result until one
//                   is an error (a hook blocked it) or 50 calls were made
//   [[slow: SECS]]  a text reply streamed evenly over SECS seconds
//   [[think: SECS]] with [[loop]], each further call comes SECS seconds after
//                   the result, as a real model's does (a drain's safe point
//                   is the time between two calls)
//   anything else   a short text reply
// Whatever the prompt, a tool result that is an error ends the turn with text
// that quotes it: a drain hook that blocks a tool makes the agent stop.

export type Reply =
  /** Text streamed in `chunks` pieces spread over `durationMs`. */
  | {kind: 'text'; text: string; durationMs?: number; chunks?: number}
  /**
   * A call of the agent's shell tool (claude: Bash; codex: its exec tool),
   * optionally after some text. claude only: `claudeTool` calls another of its
   * tools instead (e.g. Read with {file_path}); codex only: `codexTool` calls
   * another function tool (e.g. an MCP server's); `command` is then ignored.
   */
  | {
      kind: 'tool'
      command: string
      text?: string
      /** ms before the reply starts: a model's time to its first token. */
      latencyMs?: number
      claudeTool?: {name: string; input: Record<string, unknown>}
      /** `namespace`: the namespace tool that holds the function (codex offers an MCP server's tools as one). */
      codexTool?: {name: string; input: Record<string, unknown>; namespace?: string}
    }
  /** An HTTP error status with the API's error body. */
  | {kind: 'http-error'; status: number; message: string}
  /**
   * The provider's usage limit (429), lifting at `resetsAt` (epoch seconds):
   * anthropic's rate_limit_error with its unified rate-limit headers, OpenAI's
   * usage_limit_reached with resets_at, neither to be retried.
   */
  | {
      kind: 'usage-limit'
      resetsAt: number
      /** Chat Completions only: the error's message instead of the API's usual one. */
      message?: string
      /** Chat Completions only: send a retry-after header (seconds until resetsAt). */
      retryAfter?: boolean
    }

export interface Turn {
  /** Text of the latest user prompt (not a tool result), markers included. */
  prompt: string
  /** What the request ends with: the prompt itself or a tool's result. */
  last: {kind: 'prompt'} | {kind: 'tool-result'; output: string; isError: boolean}
  /** Tool calls the model made since that prompt. */
  toolCalls: number
}

export type Responder = (turn: Turn) => Reply | undefined

const MAX_LOOP = 50

function marker(prompt: string, name: string): string | null {
  const match = new RegExp(`\\[\\[${name}:\\s*([\\s\\S]*?)\\]\\]`).exec(prompt)
  return match ? match[1].trim() : null
}

export function defaultReply(turn: Turn): Reply {
  const {last} = turn
  if (last.kind === 'tool-result') {
    if (last.isError) return {kind: 'text', text: `The tool call failed, so I am ending my turn here. It said: ${oneLine(last.output)}`}
    const loop = marker(turn.prompt, 'loop')
    const think = marker(turn.prompt, 'think')
    if (loop !== null && turn.toolCalls < MAX_LOOP) return {kind: 'tool', command: loop, ...(think === null ? {} : {latencyMs: Number(think) * 1000})}
    return {kind: 'text', text: `The command finished. Output: ${oneLine(last.output)}`}
  }
  const tool = marker(turn.prompt, 'tool') ?? marker(turn.prompt, 'loop')
  if (tool !== null) return {kind: 'tool', command: tool, text: 'I will run a command.'}
  const slow = marker(turn.prompt, 'slow')
  if (slow !== null) {
    const seconds = Number(slow)
    const words = Array.from({length: Math.max(4, Math.round(seconds * 4))}, (_, i) => `word${i + 1}`)
    return {kind: 'text', text: words.join(' '), durationMs: seconds * 1000, chunks: words.length}
  }
  return {kind: 'text', text: 'Hello from the fake model. Nothing else to do.'}
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300)

/** Splits text into `count` nearly equal pieces (at least one). */
export function splitText(text: string, count: number): string[] {
  const n = Math.max(1, Math.min(count, text.length))
  const size = Math.ceil(text.length / n)
  const pieces: string[] = []
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
  return pieces.length > 0 ? pieces : ['']
}
