// A fake OpenAI Responses API for the real `codex`: POST /v1/responses,
// streamed as the real API does — response.created, then per output item
// response.output_item.added, its deltas, response.output_item.done, and
// response.completed with usage. Tool calls are function_call items for the
// exec tool the request offers.

import type http from 'node:http'
import path from 'node:path'
import {estimateTokens, FakeModelServer, streamPieces, randomId, sse, type ModelApi, type Usage} from './fake-server.js'
import {splitText, type Reply, type Turn} from './script.js'

const itemText = (item: any): string => {
  if (typeof item?.content === 'string') return item.content
  if (!Array.isArray(item?.content)) return ''
  return item.content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('\n')
}

const outputText = (output: unknown): string => {
  if (typeof output === 'string') return output
  if (Array.isArray(output)) return output.map((p: any) => p?.text ?? '').join('\n')
  if (output && typeof output === 'object' && typeof (output as any).content === 'string') return (output as any).content
  return JSON.stringify(output ?? '')
}

const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'local_shell_call'])
const RESULT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output'])

/** codex reports a command's failure in the output text; a hook or policy refusal too. */
export function codexOutputFailed(output: string): boolean {
  const code = /(?:exit(?:ed with)? code|"exit_code"\s*:)\s*(-?\d+)/i.exec(output)
  if (code) return Number(code[1]) !== 0
  return /\b(rejected|blocked|denied)\b/i.test(output)
}

export function readOpenAITurn(body: any): Turn {
  const input: any[] = Array.isArray(body?.input) ? body.input : []
  let start = input.length - 1
  while (start >= 0 && !(input[start]?.type === 'message' && input[start]?.role === 'user')) start--
  const prompt = start >= 0 ? itemText(input[start]) : ''
  const toolCalls = input.slice(start + 1).filter((i) => CALL_TYPES.has(i?.type)).length
  const lastItem = input.at(-1)
  let last: Turn['last'] = {kind: 'prompt'}
  if (RESULT_TYPES.has(lastItem?.type)) {
    const output = outputText(lastItem.output)
    last = {kind: 'tool-result', output, isError: codexOutputFailed(output)}
  }
  return {prompt, last, toolCalls}
}

/** The function call for the exec tool this request offers, with arguments in its own shape. */
export function execToolCall(body: any, command: string): {name: string; arguments: string} {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : []
  const names = new Set(tools.map((t) => t?.name).filter(Boolean))
  if (names.has('exec_command')) return {name: 'exec_command', arguments: JSON.stringify({cmd: command, yield_time_ms: 30_000})}
  if (names.has('shell_command')) return {name: 'shell_command', arguments: JSON.stringify({command, timeout_ms: 60_000})}
  if (names.has('shell')) return {name: 'shell', arguments: JSON.stringify({command: ['bash', '-lc', command], timeout_ms: 60_000})}
  throw new Error(`no exec tool offered; tools: ${[...names].join(', ')}`)
}


async function sendOpenAI(res: http.ServerResponse, body: any, reply: Reply, signal: AbortSignal): Promise<Usage | undefined> {
  if (reply.kind === 'usage-limit') {
    // The body shape codex reads as its usage limit (reported in earendil-works/pi issue 4172).
    const resetsIn = Math.max(0, reply.resetsAt - Math.floor(Date.now() / 1000))
    res.writeHead(429, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: {type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: reply.resetsAt, eligible_promo: null, resets_in_seconds: resetsIn}}))
    return undefined
  }
  if (reply.kind === 'http-error') {
    res.writeHead(reply.status, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: {type: 'server_error', code: null, message: reply.message, param: null}}))
    return undefined
  }
  res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': randomId('req_')})
  let sequence = 0
  const emit = (type: string, fields: Record<string, unknown>) => sse(res, type, {type, sequence_number: sequence++, ...fields})
  const response = {
    id: randomId('resp_'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    model: body?.model ?? 'gpt-fake',
    output: [] as any[],
    usage: null as any,
  }
  emit('response.created', {response})
  emit('response.in_progress', {response})
  const output: any[] = []
  const text = reply.text
  if (text) {
    const index = output.length
    const id = randomId('msg_')
    emit('response.output_item.added', {output_index: index, item: {id, type: 'message', status: 'in_progress', role: 'assistant', content: []}})
    emit('response.content_part.added', {item_id: id, output_index: index, content_index: 0, part: {type: 'output_text', text: '', annotations: []}})
    if (!(await streamPieces(text, reply, signal, (piece) => emit('response.output_text.delta', {item_id: id, output_index: index, content_index: 0, delta: piece, logprobs: []})))) return undefined
    const part = {type: 'output_text', text, annotations: [], logprobs: []}
    emit('response.output_text.done', {item_id: id, output_index: index, content_index: 0, text, logprobs: []})
    emit('response.content_part.done', {item_id: id, output_index: index, content_index: 0, part})
    const item = {id, type: 'message', status: 'completed', role: 'assistant', content: [part]}
    emit('response.output_item.done', {output_index: index, item})
    output.push(item)
  }
  if (reply.kind === 'tool') {
    const index = output.length
    const call = reply.codexTool
      ? {name: reply.codexTool.name, arguments: JSON.stringify(reply.codexTool.input), ...(reply.codexTool.namespace ? {namespace: reply.codexTool.namespace} : {})}
      : execToolCall(body, reply.command)
    const id = randomId('fc_')
    const callId = randomId('call_')
    const {arguments: args, ...named} = call
    emit('response.output_item.added', {output_index: index, item: {id, type: 'function_call', status: 'in_progress', arguments: '', call_id: callId, ...named}})
    for (const piece of splitText(args, 2)) emit('response.function_call_arguments.delta', {item_id: id, output_index: index, delta: piece})
    emit('response.function_call_arguments.done', {item_id: id, output_index: index, arguments: args})
    const item = {id, type: 'function_call', status: 'completed', arguments: args, call_id: callId, ...named}
    emit('response.output_item.done', {output_index: index, item})
    output.push(item)
  }
  const inputTokens = estimateTokens(body?.input)
  const outputTokens = estimateTokens(output)
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: {cached_tokens: 0},
    output_tokens: outputTokens,
    output_tokens_details: {reasoning_tokens: 0},
    total_tokens: inputTokens + outputTokens,
  }
  emit('response.completed', {response: {...response, status: 'completed', output, usage}})
  res.end()
  return {inputTokens, outputTokens}
}

export const openAIApi: ModelApi = {
  name: 'openai',
  serves: (method, pathname) => method === 'POST' && pathname === '/v1/responses',
  readTurn: readOpenAITurn,
  send: sendOpenAI,
}

/** Starts a fake OpenAI Responses server; `logDir` gets openai-requests.jsonl. */
export async function startOpenAIServer(logDir?: string): Promise<FakeModelServer> {
  return new FakeModelServer(openAIApi, logDir ? path.join(logDir, 'openai-requests.jsonl') : undefined).start()
}
