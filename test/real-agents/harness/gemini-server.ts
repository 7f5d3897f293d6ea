// A fake Gemini API (generativelanguage v1beta) for the real `gemini`:
// POST /v1beta/models/M:streamGenerateContent?alt=sse, streamed as the real API
// does — GenerateContentResponse chunks with `candidates[0].content.parts`
// (text, or a functionCall), the last with `finishReason` and
// `usageMetadata` — and :generateContent as one response. Tool calls name the
// shell tool the request declares.

import type http from 'node:http'
import path from 'node:path'
import {estimateTokens, FakeModelServer, streamPieces, type ModelApi, type Usage} from './fake-server.js'
import type {Reply, Turn} from './script.js'

const responseText = (response: any): string => {
  if (typeof response?.output === 'string') return response.output
  if (typeof response?.error === 'string') return response.error
  return JSON.stringify(response ?? '')
}

export function readGeminiTurn(body: any): Turn {
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : []
  const isPrompt = (c: any) => c?.role === 'user' && Array.isArray(c.parts) && c.parts.some((p: any) => typeof p?.text === 'string') && !c.parts.some((p: any) => p?.functionResponse)
  let start = contents.length - 1
  while (start >= 0 && !isPrompt(contents[start])) start--
  // gemini puts a prompt sent after an interrupted one into the same content: the last text part is the newest prompt
  const texts = start >= 0 ? (contents[start].parts as any[]).filter((p) => typeof p?.text === 'string') : []
  const prompt = texts.length > 0 ? texts.at(-1).text : ''
  const toolCalls = contents.slice(start + 1).filter((c) => c?.role === 'model').flatMap((c) => c.parts ?? []).filter((p: any) => p?.functionCall).length
  const lastResponse = (contents.at(-1)?.parts ?? []).filter((p: any) => p?.functionResponse).at(-1)?.functionResponse
  let last: Turn['last'] = {kind: 'prompt'}
  if (lastResponse) {
    const output = responseText(lastResponse.response)
    const isError = lastResponse.response?.error !== undefined || /exit code:\s*[1-9]|\b(blocked|denied|rejected|being drained)\b/i.test(output)
    last = {kind: 'tool-result', output, isError}
  }
  return {prompt, last, toolCalls}
}

function shellCall(body: any, command: string): {name: string; args: Record<string, unknown>} {
  const names = (Array.isArray(body?.tools) ? body.tools : []).flatMap((t: any) => (t?.functionDeclarations ?? []).map((f: any) => f?.name))
  const name = names.includes('run_shell_command') ? 'run_shell_command' : names.find((n: string) => /shell/.test(n))
  if (!name) throw new Error(`no shell tool declared; tools: ${names.join(', ')}`)
  return {name, args: {command, description: 'Run the scripted command'}}
}

async function sendGemini(res: http.ServerResponse, body: any, reply: Reply, signal: AbortSignal, stream: boolean): Promise<Usage | undefined> {
  if (reply.kind === 'usage-limit') {
    const seconds = Math.max(1, reply.resetsAt - Math.floor(Date.now() / 1000))
    res.writeHead(429, {'content-type': 'application/json'})
    res.end(
      JSON.stringify({
        error: {
          code: 429,
          message: `You exceeded your current quota, please check your plan and billing details. Please retry in ${seconds}s.`,
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {'@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier'}]},
            {'@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s`},
          ],
        },
      }),
    )
    return undefined
  }
  if (reply.kind === 'http-error') {
    res.writeHead(reply.status, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: {code: reply.status, message: reply.message, status: reply.status === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL'}}))
    return undefined
  }
  const text = reply.text ?? ''
  const call = reply.kind === 'tool' ? shellCall(body, reply.command) : null
  const inputTokens = estimateTokens(body?.contents)
  const outputTokens = estimateTokens([text, call])
  const usageMetadata = {promptTokenCount: inputTokens, candidatesTokenCount: outputTokens, totalTokenCount: inputTokens + outputTokens}
  const modelVersion = 'gemini-2.5-flash'
  const candidate = (parts: unknown[], finishReason?: string) => ({content: {parts, role: 'model'}, index: 0, ...(finishReason ? {finishReason} : {})})
  const allParts = [...(text ? [{text}] : []), ...(call ? [{functionCall: call}] : [])]
  if (!stream) {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(JSON.stringify({candidates: [candidate(allParts, 'STOP')], usageMetadata, modelVersion}))
    return {inputTokens, outputTokens}
  }
  res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'})
  const write = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\r\n\r\n`)
  if (text) {
    if (!(await streamPieces(text, reply, signal, (piece) => write({candidates: [candidate([{text: piece}])], usageMetadata: {promptTokenCount: inputTokens, totalTokenCount: inputTokens}, modelVersion})))) return undefined
  }
  write({candidates: [candidate(call ? [{functionCall: call}] : [{text: ''}], 'STOP')], usageMetadata, modelVersion})
  res.end()
  return {inputTokens, outputTokens}
}

export const geminiApi: ModelApi = {
  name: 'gemini',
  serves: (method, pathname) => method === 'POST' && /^\/v1beta\/models\/[^/:]+:(streamGenerateContent|generateContent)$/.test(pathname),
  readTurn: readGeminiTurn,
  send: (res, body, reply, signal) => sendGemini(res, body, reply, signal, /:streamGenerateContent/.test(res.req.url ?? '')),
}

/** Starts a fake Gemini server; `logDir` gets gemini-requests.jsonl. */
export async function startGeminiServer(logDir?: string): Promise<FakeModelServer> {
  return new FakeModelServer(geminiApi, logDir ? path.join(logDir, 'gemini-requests.jsonl') : undefined).start()
}
