// A fake Anthropic Messages API for the real `claude`: POST /v1/messages
// (claude adds ?beta=true), answered as the real API streams it — message_start,
// content_block_start/delta/stop per text or tool_use block, message_delta with
// stop_reason and usage, message_stop — or as one JSON message when the request
// does not ask for a stream.

import type http from 'node:http'
import path from 'node:path'
import {estimateTokens, FakeModelServer, randomId, sleep, sse, type ModelApi, type Usage} from './fake-server.js'
import {splitText, type Reply, type Turn} from './script.js'

const blockText = (block: any): string => {
  if (typeof block === 'string') return block
  if (block?.type === 'text') return String(block.text ?? '')
  if (Array.isArray(block?.content)) return block.content.map(blockText).join('\n')
  if (typeof block?.content === 'string') return block.content
  return ''
}

const blocks = (message: any): any[] => (Array.isArray(message?.content) ? message.content : [{type: 'text', text: String(message?.content ?? '')}])

export function readAnthropicTurn(body: any): Turn {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : []
  const isPrompt = (m: any) => m.role === 'user' && !blocks(m).some((b) => b.type === 'tool_result')
  let start = messages.length - 1
  while (start >= 0 && !isPrompt(messages[start])) start--
  const prompt = start >= 0 ? blocks(messages[start]).map(blockText).join('\n') : ''
  const toolCalls = messages.slice(start + 1).filter((m) => m.role === 'assistant').flatMap(blocks).filter((b) => b.type === 'tool_use').length
  const lastResult = blocks(messages.at(-1)).filter((b) => b.type === 'tool_result').at(-1)
  const last: Turn['last'] = lastResult ? {kind: 'tool-result', output: blockText(lastResult), isError: lastResult.is_error === true} : {kind: 'prompt'}
  return {prompt, last, toolCalls}
}


/** The content blocks of a reply, as the final message holds them. */
function replyBlocks(reply: Reply, body: any): any[] {
  if (reply.kind === 'text') return [{type: 'text', text: reply.text}]
  if (reply.kind !== 'tool') return []
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : []
  const bash = tools.find((t) => t.name === 'Bash')?.name ?? 'Bash'
  const out: any[] = []
  if (reply.text) out.push({type: 'text', text: reply.text})
  const call = reply.claudeTool ?? {name: bash, input: {command: reply.command, description: 'Run the scripted command'}}
  out.push({type: 'tool_use', id: randomId('toolu_01'), name: call.name, input: call.input})
  return out
}

async function sendAnthropic(res: http.ServerResponse, body: any, reply: Reply, signal: AbortSignal): Promise<Usage | undefined> {
  if (reply.kind === 'usage-limit') {
    res.writeHead(429, {
      'content-type': 'application/json',
      'x-should-retry': 'false',
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(reply.resetsAt),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    })
    res.end(JSON.stringify({type: 'error', error: {type: 'rate_limit_error', message: "This request would exceed your account's rate limit. Please try again later."}}))
    return undefined
  }
  if (reply.kind === 'http-error') {
    res.writeHead(reply.status, {'content-type': 'application/json'})
    res.end(JSON.stringify({type: 'error', error: {type: 'api_error', message: reply.message}}))
    return undefined
  }
  const content = replyBlocks(reply, body)
  const stopReason = reply.kind === 'tool' ? 'tool_use' : 'end_turn'
  const inputTokens = estimateTokens(body?.messages)
  const outputTokens = estimateTokens(content)
  const message = {
    id: randomId('msg_01'),
    type: 'message',
    role: 'assistant',
    model: body?.model ?? 'claude-fake',
    content: [] as any[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage: {input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1},
  }
  const headers = {'request-id': randomId('req_011'), 'anthropic-organization-id': '00000000-0000-0000-0000-000000000000'}
  if (body?.stream !== true) {
    res.writeHead(200, {'content-type': 'application/json', ...headers})
    res.end(JSON.stringify({...message, content, stop_reason: stopReason, usage: {...message.usage, output_tokens: outputTokens}}))
    return {inputTokens, outputTokens}
  }
  res.writeHead(200, {'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers})
  sse(res, 'message_start', {type: 'message_start', message})
  sse(res, 'ping', {type: 'ping'})
  for (const [index, block] of content.entries()) {
    if (signal.aborted) return undefined
    if (block.type === 'text') {
      sse(res, 'content_block_start', {type: 'content_block_start', index, content_block: {type: 'text', text: ''}})
      const pieces = splitText(block.text, reply.kind === 'text' ? (reply.chunks ?? 3) : 2)
      const pause = reply.kind === 'text' && reply.durationMs ? reply.durationMs / pieces.length : 0
      for (const piece of pieces) {
        if (pause) await sleep(pause, signal)
        if (signal.aborted) return undefined
        sse(res, 'content_block_delta', {type: 'content_block_delta', index, delta: {type: 'text_delta', text: piece}})
      }
    } else {
      sse(res, 'content_block_start', {type: 'content_block_start', index, content_block: {type: 'tool_use', id: block.id, name: block.name, input: {}}})
      const json = JSON.stringify(block.input)
      for (const piece of splitText(json, 2)) {
        sse(res, 'content_block_delta', {type: 'content_block_delta', index, delta: {type: 'input_json_delta', partial_json: piece}})
      }
    }
    sse(res, 'content_block_stop', {type: 'content_block_stop', index})
  }
  sse(res, 'message_delta', {type: 'message_delta', delta: {stop_reason: stopReason, stop_sequence: null}, usage: {output_tokens: outputTokens}})
  sse(res, 'message_stop', {type: 'message_stop'})
  res.end()
  return {inputTokens, outputTokens}
}

export const anthropicApi: ModelApi = {
  name: 'anthropic',
  serves: (method, pathname) => method === 'POST' && pathname === '/v1/messages',
  readTurn: readAnthropicTurn,
  send: sendAnthropic,
}

/** Starts a fake Anthropic server; `logDir` gets anthropic-requests.jsonl. */
export async function startAnthropicServer(logDir?: string): Promise<FakeModelServer> {
  return new FakeModelServer(anthropicApi, logDir ? path.join(logDir, 'anthropic-requests.jsonl') : undefined).start()
}
