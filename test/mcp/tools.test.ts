// The MCP tool table without a server: which tools each mode offers, that
// every schema becomes a JSON Schema object a client can show, and how errors
// become tool errors with the CLI's exit codes.

import * as z from 'zod'
import {describe, expect, it} from 'vitest'
import {DroverError, ExitCode} from '../../src/api/index.js'
import {inputs, outputs} from '../../src/mcp/schemas.js'
import {argumentsError, errorResult} from '../../src/mcp/tool-error.js'
import {TOOLS, toolsFor} from '../../src/mcp/tools.js'

describe('the MCP tools', () => {
  it('offers the read tools always, the others unless read-only, prune only when allowed', () => {
    const names = (opts: {readOnly: boolean; allow: string[]}) => toolsFor(opts).map((t) => t.name)
    expect(names({readOnly: true, allow: ['prune']})).toEqual(['list_tasks', 'get_task', 'read_output', 'wait_tasks', 'queue_status'])
    expect(names({readOnly: false, allow: []})).not.toContain('prune_tasks')
    expect(names({readOnly: false, allow: ['prune']})).toContain('prune_tasks')
    expect(TOOLS.filter((t) => t.annotations.readOnlyHint).map((t) => t.access)).toEqual(Array(5).fill('read'))
  })

  it('has an input and an output schema for every tool, each a JSON Schema object', () => {
    for (const tool of TOOLS) {
      for (const schema of [inputs[tool.name], outputs[tool.name]]) {
        expect(z.toJSONSchema(schema, {target: 'draft-7', io: 'input'}).type, tool.name).toBe('object')
      }
    }
  })

  it('says what is wrong with arguments in one line, exit 2', () => {
    const parsed = inputs.read_output.safeParse({task: 1.5, cursor: -1, extra: true})
    expect(parsed.success).toBe(false)
    const result = argumentsError('read_output', parsed.error!)
    expect(result).toMatchObject({isError: true, _meta: {exitCode: 2}})
    const text = result.content[0].text
    expect(text).toMatch(/^invalid arguments for read_output: /)
    expect(text).toMatch(/task: expected a task id/)
    expect(text).toMatch(/cursor: /)
    expect(text).toMatch(/unknown argument extra/)
    expect(text).toMatch(/\(exit 2\)$/)
  })

  it('keeps the exit code of drover errors, calls a refused file operation the state dir (5), anything else a failure (1)', () => {
    expect(errorResult(new DroverError('no such task: 9', ExitCode.notFound)).content[0].text).toBe('no such task: 9 (exit 3)')
    const denied = Object.assign(new Error("EACCES: permission denied, open '/x'"), {code: 'EACCES'})
    expect(errorResult(denied)).toMatchObject({_meta: {exitCode: 5}})
    expect(errorResult(new TypeError('boom\nstack'))).toMatchObject({_meta: {exitCode: 1}, content: [{text: 'internal error: boom (exit 1)'}]})
  })
})
