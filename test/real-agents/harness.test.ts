// The harness itself: the loopback check sees a real interface, the fake
// servers stream in the real event order, read turns as the agents send them,
// log every request and catch any request off their routes.

import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {readAnthropicTurn, startAnthropicServer} from './harness/anthropic-server.js'
import type {FakeModelServer} from './harness/fake-server.js'
import {nonLoopbackInOutput, nonLoopbackUp} from './harness/network.js'
import {readOpenAITurn, startOpenAIServer} from './harness/openai-server.js'

const servers: FakeModelServer[] = []
const dirs: string[] = []

afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop()
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})

async function anthropic(): Promise<{server: FakeModelServer; logDir: string}> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'drover-fake-log-'))
  dirs.push(logDir)
  const server = await startAnthropicServer(logDir)
  servers.push(server)
  return {server, logDir}
}

async function openai(): Promise<FakeModelServer> {
  const server = await startOpenAIServer()
  servers.push(server)
  return server
}

/** The SSE event names of a response, in order, with their data. */
async function events(res: Response): Promise<{event: string; data: any}[]> {
  const text = await res.text()
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1]
      return {event, data: JSON.parse(/^data: (.*)$/m.exec(chunk)![1])}
    })
}

const post = (url: string, body: unknown) => fetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})

describe('loopback check', () => {
  it('finds an interface that is up and not loopback in ip output', () => {
    const sample = [
      '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00',
      '4: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1400 qdisc pfifo_fast state UP mode DEFAULT group default qlen 1000\\    link/ether 02:fc:00:00:00:01',
      '5: veth1@if6: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP',
      '7: dummy0: <BROADCAST,NOARP> mtu 1500 qdisc noop state DOWN',
    ].join('\n')
    expect(nonLoopbackInOutput(sample)).toEqual(['eth0', 'veth1'])
  })

  it('this suite runs with loopback only', () => {
    expect(nonLoopbackUp()).toEqual([])
  })
})

describe('fake servers', () => {
  it('answer anything off their routes with 404, and assertNoUnexpected says so', async () => {
    const {server, logDir} = await anthropic()
    server.assertNoUnexpected()
    const res = await post(`${server.url}/v1/complete`, {prompt: 'x'})
    expect(res.status).toBe(404)
    expect((await fetch(`${server.url}/v1/messages`)).status).toBe(404)
    expect(server.unexpected).toEqual([
      {method: 'POST', url: '/v1/complete'},
      {method: 'GET', url: '/v1/messages'},
    ])
    expect(() => server.assertNoUnexpected()).toThrow(/unexpected requests: POST \/v1\/complete, GET \/v1\/messages/)
    // logged in memory and in the JSONL file alike
    const lines = readFileSync(path.join(logDir, 'anthropic-requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => l.url)).toEqual(['/v1/complete', '/v1/messages'])
    expect(lines[0].body).toEqual({prompt: 'x'})
    expect(server.requests).toHaveLength(2)
    const other = await openai()
    expect((await post(`${other.url}/v1/chat/completions`, {})).status).toBe(404)
    expect(() => other.assertNoUnexpected()).toThrow(/POST \/v1\/chat\/completions/)
  })

  it('anthropic: a tool call streams text and tool_use blocks, then stop_reason tool_use', async () => {
    const {server} = await anthropic()
    const body = {model: 'm', stream: true, tools: [{name: 'Bash'}], messages: [{role: 'user', content: [{type: 'text', text: 'go [[tool: echo hi]]'}]}]}
    const got = await events(await post(`${server.url}/v1/messages?beta=true`, body))
    expect(got.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    const toolStart = got[6].data
    expect(toolStart.content_block).toMatchObject({type: 'tool_use', name: 'Bash', input: {}})
    const json = got.filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json).join('')
    expect(JSON.parse(json)).toMatchObject({command: 'echo hi'})
    expect(got.at(-2)!.data).toMatchObject({delta: {stop_reason: 'tool_use'}, usage: {output_tokens: expect.any(Number)}})
    expect(server.modelRequests('[[tool: echo hi]]')).toHaveLength(1)
  })

  it('anthropic: turns read from prompts, tool results and blocked tools', () => {
    const prompt = {role: 'user', content: [{type: 'text', text: '[[loop: date]]'}]}
    const call = {role: 'assistant', content: [{type: 'tool_use', id: 't1', name: 'Bash', input: {command: 'date'}}]}
    const result = (isError: boolean) => ({role: 'user', content: [{type: 'tool_result', tool_use_id: 't1', content: 'stop now', is_error: isError}]})
    expect(readAnthropicTurn({messages: [prompt, {role: 'system', content: 'env'}]})).toEqual({prompt: '[[loop: date]]', last: {kind: 'prompt'}, toolCalls: 0})
    expect(readAnthropicTurn({messages: [prompt, call, result(false)]})).toEqual({prompt: '[[loop: date]]', last: {kind: 'tool-result', output: 'stop now', isError: false}, toolCalls: 1})
    expect(readAnthropicTurn({messages: [prompt, call, result(true)]}).last).toEqual({kind: 'tool-result', output: 'stop now', isError: true})
  })

  it('openai: a tool call is a function_call item for the exec tool offered, then response.completed with usage', async () => {
    const server = await openai()
    const body = {model: 'gpt', stream: true, tools: [{type: 'function', name: 'exec_command'}], input: [{type: 'message', role: 'user', content: [{type: 'input_text', text: '[[tool: echo hi]]'}]}]}
    const got = await events(await post(`${server.url}/v1/responses`, body))
    const names = got.map((e) => e.event)
    expect(names[0]).toBe('response.created')
    expect(names.at(-1)).toBe('response.completed')
    expect(names).toContain('response.output_text.delta')
    const done = got.filter((e) => e.event === 'response.output_item.done').map((e) => e.data.item)
    expect(done.map((i) => i.type)).toEqual(['message', 'function_call'])
    expect(done[1]).toMatchObject({name: 'exec_command', call_id: expect.stringMatching(/^call_/)})
    expect(JSON.parse(done[1].arguments)).toMatchObject({cmd: 'echo hi'})
    expect(got.at(-1)!.data.response).toMatchObject({status: 'completed', usage: {input_tokens: expect.any(Number), output_tokens: expect.any(Number)}})
    expect(got.map((e) => e.data.sequence_number)).toEqual(got.map((_, i) => i))
  })

  it('openai: turns read from prompts and exec outputs, a non-zero exit is an error', () => {
    const prompt = {type: 'message', role: 'user', content: [{type: 'input_text', text: 'hello [[slow: 2]]'}]}
    const call = {type: 'function_call', name: 'exec_command', arguments: '{}', call_id: 'c1'}
    const output = (code: number) => ({type: 'function_call_output', call_id: 'c1', output: `Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code ${code}\nOutput:\nx\n`})
    expect(readOpenAITurn({input: [prompt]})).toEqual({prompt: 'hello [[slow: 2]]', last: {kind: 'prompt'}, toolCalls: 0})
    expect(readOpenAITurn({input: [prompt, call, output(0)]}).last).toMatchObject({kind: 'tool-result', isError: false})
    expect(readOpenAITurn({input: [prompt, call, output(2)]})).toMatchObject({toolCalls: 1, last: {kind: 'tool-result', isError: true}})
  })

  it('a queued reply wins over the prompt markers, a slow reply takes its time', async () => {
    const server = await openai()
    server.queue({kind: 'http-error', status: 500, message: 'overloaded'})
    const body = {input: [{type: 'message', role: 'user', content: [{type: 'input_text', text: '[[slow: 1]]'}]}]}
    const failed = await post(`${server.url}/v1/responses`, body)
    expect(failed.status).toBe(500)
    const began = Date.now()
    const got = await events(await post(`${server.url}/v1/responses`, body))
    expect(Date.now() - began).toBeGreaterThanOrEqual(900)
    expect(got.filter((e) => e.event === 'response.output_text.delta').length).toBeGreaterThanOrEqual(4)
  })
})
