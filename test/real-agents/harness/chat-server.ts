// A fake OpenAI Chat Completions API for the real qwen, copilot and opencode:
// POST /v1/chat/completions, streamed as the real API does — chunks of
// `chat.completion.chunk` with `delta.content` or `delta.tool_calls`, a last
// chunk with `finish_reason`, a usage chunk, then `data: [DONE]` — or one
// `chat.completion` object when the request does not ask for a stream.
// Tool calls name the shell tool the request offers, with arguments in its shape.

import type http from 'node:http'
import path from 'node:path'
import {estimateTokens, FakeModelServer, streamPieces, randomId, type ModelApi, type Usage} from './fake-server.js'
import {splitText, type Reply, type Turn} from './script.js'

const contentText = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('\n')
  return ''
}

/** A tool result the agent reports as failed (a refusal, a non-zero exit). */
export function chatOutputFailed(output: string): boolean {
  const code = /(?:exit(?:ed with)? code|exit status|"exit_code"\s*:)\s*:?\s*(-?\d+)/i.exec(output)
  if (code) return Number(code[1]) !== 0
  return /\b(rejected|blocked|denied|being drained)\b/i.test(output)
}

export function readChatTurn(body: any): Turn {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : []
  let start = messages.length - 1
  while (start >= 0 && messages[start]?.role !== 'user') start--
  // an agent may put a prompt sent after an interrupted one into the same message: the last text part is the newest prompt
  const content = start >= 0 ? messages[start].content : ''
  const parts = Array.isArray(content) ? content.filter((p: any) => typeof p?.text === 'string') : []
  const prompt = parts.length > 0 ? parts.at(-1).text : contentText(content)
  const toolCalls = messages.slice(start + 1).filter((m) => m?.role === 'assistant').flatMap((m) => (Array.isArray(m.tool_calls) ? m.tool_calls : [])).length
  const lastMessage = messages.at(-1)
  let last: Turn['last'] = {kind: 'prompt'}
  if (lastMessage?.role === 'tool') {
    const output = contentText(lastMessage.content)
    last = {kind: 'tool-result', output, isError: chatOutputFailed(output)}
  }
  return {prompt, last, toolCalls}
}

/** The shell tool this request offers and its arguments: qwen's run_shell_command, copilot's and opencode's bash. */
export function shellToolCall(body: any, command: string): {name: string; arguments: string} {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : []
  const names = tools.map((t) => t?.function?.name).filter(Boolean) as string[]
  if (names.includes('run_shell_command')) return {name: 'run_shell_command', arguments: JSON.stringify({command, is_background: false, description: 'Run the scripted command'})}
  if (names.includes('bash')) return {name: 'bash', arguments: JSON.stringify({command, description: 'Run the scripted command', timeout: 120_000})}
  if (names.includes('shell')) return {name: 'shell', arguments: JSON.stringify({command})}
  throw new Error(`no shell tool offered; tools: ${names.join(', ')}`)
}

function chunk(res: http.ServerResponse, base: Record<string, unknown>, choice: Record<string, unknown> | null, usage?: unknown): void {
  const data = {...base, choices: choice ? [{index: 0, logprobs: null, ...choice}] : [], ...(usage ? {usage} : {})}
  res.write(`data: ${JSON.stringify(data)}\n\n`)
}

async function sendChat(res: http.ServerResponse, body: any, reply: Reply, signal: AbortSignal): Promise<Usage | undefined> {
  if (reply.kind === 'usage-limit') {
    // OpenAI's own wording of a rate limit, with the wait in its message (no retry-after header: the agents that
    // honour one would wait by themselves instead of reporting the limit).
    const resetsIn = Math.max(1, reply.resetsAt - Math.floor(Date.now() / 1000))
    res.writeHead(429, {'content-type': 'application/json', ...(reply.retryAfter ? {'retry-after': String(resetsIn)} : {})})
    const message = reply.message ?? `Rate limit reached for fake-model in organization org-fake on requests per day (RPD): Limit 100, Used 100, Requested 1. Please try again in ${resetsIn}s. Visit https://platform.openai.com/account/rate-limits to learn more.`
    res.end(JSON.stringify({error: {message, type: 'requests', param: null, code: 'rate_limit_exceeded'}}))
    return undefined
  }
  if (reply.kind === 'http-error') {
    res.writeHead(reply.status, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: {message: reply.message, type: 'invalid_request_error', param: null, code: null}}))
    return undefined
  }
  const text = reply.text ?? ''
  const call = reply.kind === 'tool' ? {id: randomId('call_'), type: 'function', function: shellToolCall(body, reply.command)} : null
  const inputTokens = estimateTokens(body?.messages)
  const outputTokens = estimateTokens([text, call])
  const usage = {prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens}
  const finish = call ? 'tool_calls' : 'stop'
  const base = {id: randomId('chatcmpl-'), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body?.model ?? 'fake-model', system_fingerprint: null}
  if (body?.stream !== true) {
    res.writeHead(200, {'content-type': 'application/json'})
    const message = {role: 'assistant', content: text || null, ...(call ? {tool_calls: [call]} : {})}
    res.end(JSON.stringify({...base, object: 'chat.completion', choices: [{index: 0, message, finish_reason: finish, logprobs: null}], usage}))
    return {inputTokens, outputTokens}
  }
  res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive'})
  chunk(res, base, {delta: {role: 'assistant', content: ''}, finish_reason: null})
  if (text) {
    if (!(await streamPieces(text, reply, signal, (piece) => chunk(res, base, {delta: {content: piece}, finish_reason: null})))) return undefined
  }
  if (call) {
    chunk(res, base, {delta: {tool_calls: [{index: 0, id: call.id, type: 'function', function: {name: call.function.name, arguments: ''}}]}, finish_reason: null})
    for (const piece of splitText(call.function.arguments, 2)) chunk(res, base, {delta: {tool_calls: [{index: 0, function: {arguments: piece}}]}, finish_reason: null})
  }
  chunk(res, base, {delta: {}, finish_reason: finish})
  chunk(res, base, null, usage)
  res.write('data: [DONE]\n\n')
  res.end()
  return {inputTokens, outputTokens}
}

export const chatApi: ModelApi = {
  name: 'openai-chat',
  serves: (method, pathname) => method === 'POST' && (pathname === '/v1/chat/completions' || pathname === '/chat/completions'),
  readTurn: readChatTurn,
  // opencode asks its small model for the session's title, with no tools: a title, whatever the prompt says.
  aside: (body) => {
    const system = (Array.isArray(body?.messages) ? body.messages : []).filter((m: any) => m?.role === 'system').map((m: any) => contentText(m.content)).join('\n')
    return !(Array.isArray(body?.tools) && body.tools.length > 0) && /title/i.test(system) ? {kind: 'text', text: 'A title'} : undefined
  },
  send: sendChat,
}

/** Starts a fake Chat Completions server; `logDir` gets chat-requests.jsonl. */
export async function startChatServer(logDir?: string): Promise<FakeModelServer> {
  return new FakeModelServer(chatApi, logDir ? path.join(logDir, 'chat-requests.jsonl') : undefined).start()
}
