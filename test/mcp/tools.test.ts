// The MCP tool table without a server, as `tools/list` shows it: which tools
// each mode offers, the arguments each takes and their types (a table here,
// so a changed schema is a decision, not an accident), the results they
// promise, their annotations and what their descriptions must tell a model;
// and how errors become tool errors with the CLI's exit codes.

import {describe, expect, it} from 'vitest'
import {DroverError, ExitCode} from '../../src/api/index.js'
import {TASK_STATUSES} from '../../src/api/values.js'
import {inputs} from '../../src/mcp/schemas.js'
import {fanOutOptions, startOptions} from '../../src/mcp/start.js'
import {argumentsError, errorResult} from '../../src/mcp/tool-error.js'
import {listedTool, TOOLS, toolsFor, type JsonSchemaObject} from '../../src/mcp/tools.js'

/** A JSON Schema's type, shortly: `integer | string`, `string[]`, `record<string>`, `enum(a,b)`. */
function signature(schema: Record<string, any>): string {
  if (schema.anyOf) return schema.anyOf.map(signature).join(' | ')
  if (schema.enum) return `enum(${schema.enum.join(',')})`
  if (schema.type === 'array') return `${signature(schema.items).includes(' | ') ? `(${signature(schema.items)})` : signature(schema.items)}[]`
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') return `record<${signature(schema.additionalProperties)}>`
  return schema.type
}
const signatures = (schema: JsonSchemaObject) => Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, signature(property)]))

const REF = 'integer | string'
const STATUSES = `enum(${TASK_STATUSES.join(',')})[]`
const DURATIONS = ['timeout', 'idleTimeout', 'retryDelay', 'checkTimeout']

/** What each tool takes, as its run() reads it: the arguments it cannot do without, and every argument's type. */
const INPUTS: Record<string, {required: string[]; properties: Record<string, string>}> = {
  start_task: {
    required: [],
    properties: {
      command: 'string[]', shell: 'string', prompt: 'string', extraArgs: 'string[]', name: 'string', cwd: 'string', env: 'record<string>', agent: 'enum(claude,codex,gemini,qwen,copilot,opencode,generic)',
      timeout: 'string', idleTimeout: 'string', maxOutputBytes: 'integer', keepChildren: 'boolean', queue: 'string', priority: 'integer',
      after: `(${REF})[]`, afterEnded: `(${REF})[]`, worktree: 'boolean | string', base: 'string', existingBranch: 'boolean',
      maxTurns: 'integer', maxTokens: 'integer', maxCostUsd: 'number', onLimit: 'enum(fail,wait)',
      retry: 'integer', retryDelay: 'string', retryOnTimeout: 'boolean', ifAbsent: 'boolean', notify: 'string[]',
      attempts: 'integer | string', group: 'string', check: 'string', checkTimeout: 'string',
    },
  },
  list_tasks: {required: [], properties: {status: STATUSES, group: 'string', limit: 'integer'}},
  get_task: {required: ['task'], properties: {task: REF}},
  read_output: {required: ['task'], properties: {task: REF, cursor: 'integer', tail: 'integer', maxBytes: 'integer', format: 'enum(transcript,raw)'}},
  wait_tasks: {required: ['tasks'], properties: {tasks: `(${REF})[]`, mode: 'enum(all,any)', timeoutSeconds: 'number'}},
  stop_task: {required: ['task'], properties: {task: REF, graceSeconds: 'number', wrapUp: 'boolean', wait: 'boolean'}},
  cancel_task: {required: ['task'], properties: {task: REF, wait: 'boolean'}},
  drain_tasks: {required: [], properties: {tasks: `(${REF})[]`, all: 'boolean', graceSeconds: 'number', killAfterSeconds: 'number'}},
  resume_task: {required: ['task'], properties: {task: REF, prompt: 'string', maxTurns: 'integer', maxTokens: 'integer', maxCostUsd: 'number'}},
  send_followup: {required: ['task', 'prompt'], properties: {task: REF, prompt: 'string', now: 'boolean', keep: 'boolean'}},
  merge_task: {required: ['task'], properties: {task: REF, mode: 'enum(merge,squash,rebase)', into: 'string', commit: 'boolean'}},
  queue_status: {required: [], properties: {queue: 'string'}},
  compare_attempts: {required: ['group'], properties: {group: 'string | integer', wait: 'boolean', timeoutSeconds: 'number'}},
  prune_tasks: {required: [], properties: {keep: 'integer', olderThanSeconds: 'number', status: STATUSES, includeCheckpoints: 'boolean', dryRun: 'boolean'}},
}

/** The keys of each tool's result (the `--json` objects). */
const OUTPUTS: Record<string, string[]> = {
  start_task: ['task'],
  list_tasks: ['tasks', 'total'],
  get_task: ['task'],
  read_output: ['id', 'status', 'offset', 'nextCursor', 'size', 'text', 'more', 'complete', 'reset'],
  wait_tasks: ['ended', 'pending', 'timedOut', 'tasks'],
  stop_task: ['result'],
  cancel_task: ['result'],
  drain_tasks: ['results'],
  resume_task: ['task'],
  send_followup: ['id', 'queued', 'delivered', 'task'],
  merge_task: ['id', 'branch', 'into', 'mode', 'checkout', 'commit', 'commits', 'fastForward', 'committedWork'],
  queue_status: ['queues'],
  compare_attempts: ['group', 'base', 'sameBase', 'attempts', 'settled'],
  prune_tasks: ['dryRun', 'removed', 'kept'],
}

const reads = {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false}
/** docs/mcp.md: annotations (read-only, destructive, idempotent); open world for what runs programs of the caller's choosing. */
const ANNOTATIONS: Record<string, typeof reads> = {
  start_task: {readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true},
  list_tasks: reads,
  get_task: reads,
  read_output: reads,
  wait_tasks: reads,
  queue_status: reads,
  compare_attempts: reads,
  // asking twice to end a task ends it once
  stop_task: {readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false},
  cancel_task: {readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false},
  drain_tasks: {readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false},
  resume_task: {readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true},
  // each call queues one more message
  send_followup: {readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true},
  merge_task: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false},
  prune_tasks: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false},
}

describe('the MCP tools', () => {
  it('offers the read tools always, the others unless read-only, prune only when allowed', () => {
    const names = (opts: {readOnly: boolean; allow: string[]}) => toolsFor(opts).map((t) => t.name)
    expect(names({readOnly: true, allow: ['prune']})).toEqual(['list_tasks', 'get_task', 'read_output', 'wait_tasks', 'queue_status', 'compare_attempts'])
    expect(names({readOnly: false, allow: []})).not.toContain('prune_tasks')
    expect(names({readOnly: false, allow: ['prune']})).toContain('prune_tasks')
    expect(TOOLS.filter((t) => t.annotations.readOnlyHint).map((t) => t.access)).toEqual(Array(6).fill('read'))
  })

  it('shows each tool with the arguments it needs, typed as it reads them, strict, each described for a model', () => {
    for (const tool of TOOLS) {
      const {inputSchema} = listedTool(tool)
      const expected = INPUTS[tool.name]
      expect([tool.name, inputSchema.type, inputSchema.additionalProperties]).toEqual([tool.name, 'object', false])
      expect([tool.name, signatures(inputSchema)]).toEqual([tool.name, expected.properties])
      expect([tool.name, [...(inputSchema.required ?? [])].sort()]).toEqual([tool.name, [...expected.required].sort()])
      for (const [name, property] of Object.entries(inputSchema.properties ?? {})) {
        expect([tool.name, name, typeof property.description === 'string' && property.description.length > 10]).toEqual([tool.name, name, true])
        // as on the command line: a duration carries its unit, a count of seconds says so in its name
        if (DURATIONS.includes(name)) expect([tool.name, name, property.description]).toEqual([tool.name, name, expect.stringContaining('with its unit')])
        if (name.endsWith('Seconds')) expect([tool.name, name, property.type]).toEqual([tool.name, name, 'number'])
      }
    }
    expect(Object.keys(INPUTS).sort()).toEqual(TOOLS.map((t) => t.name).sort())
  })

  it('carries every start_task argument into the start it makes (none is silently dropped)', () => {
    const base = {command: ['true']}
    const plain = startOptions(base)
    const samples: Record<string, Record<string, unknown>> = {
      command: {command: ['echo', 'hi']},
      shell: {command: undefined, shell: 'echo hi'},
      prompt: {command: undefined, agent: 'codex', prompt: 'fix the tests'},
      extraArgs: {command: undefined, agent: 'codex', prompt: 'fix the tests', extraArgs: ['--sandbox', 'workspace-write']},
      name: {name: 'n'}, cwd: {cwd: '/tmp'}, env: {env: {A: '1'}}, agent: {agent: 'claude'},
      timeout: {timeout: '1m'}, idleTimeout: {idleTimeout: '1m'}, maxOutputBytes: {maxOutputBytes: 10}, keepChildren: {keepChildren: true},
      queue: {queue: 'q'}, priority: {priority: 3}, after: {after: [1]}, afterEnded: {afterEnded: [1]},
      worktree: {worktree: true}, base: {worktree: true, base: 'main'}, existingBranch: {worktree: 'b', existingBranch: true},
      maxTurns: {maxTurns: 2}, maxTokens: {maxTokens: 2}, maxCostUsd: {maxCostUsd: 2}, onLimit: {onLimit: 'wait'},
      retry: {retry: 2}, retryDelay: {retry: 2, retryDelay: '5s'}, retryOnTimeout: {retry: 2, retryOnTimeout: true}, ifAbsent: {name: 'n', ifAbsent: true},
      notify: {notify: ['desktop']}, group: {group: 'g'}, check: {check: 'npm test'}, checkTimeout: {check: 'npm test', checkTimeout: '5m'},
    }
    // attempts make a fan-out, not one start: carried by fanOutOptions
    expect(Object.keys(samples).sort()).toEqual(Object.keys(INPUTS.start_task.properties).filter((name) => name !== 'attempts').sort())
    const fanOut = (extra: Record<string, unknown>) => fanOutOptions(inputs.start_task.parse({prompt: 'fix the tests', worktree: true, ...extra}))
    expect(fanOut({agent: 'codex', attempts: 2, maxTurns: 3})).toMatchObject({attempts: [{agent: 'codex', count: 2}], prompt: 'fix the tests', worktree: true, maxTurns: 3})
    expect(fanOut({attempts: 'claude:2,codex', group: 'g', check: 'npm test'})).toMatchObject({attempts: 'claude:2,codex', group: 'g', check: 'npm test'})
    expect(() => fanOut({attempts: 2})).toThrow('a number of attempts is of `agent`: give agent, or attempts as "claude:2,codex"')
    expect(() => fanOut({agent: 'codex', attempts: 'claude:2'})).toThrow('attempts "claude:2,codex" names the agents itself: leave out agent')
    expect(() => fanOut({attempts: 'claude:2', name: 'x'})).toThrow('name is for one task, not for attempts')
    for (const [name, extra] of Object.entries(samples)) {
      const args = inputs.start_task.parse({...base, ...extra})
      // what goes with it alone (base, retryDelay, …) must add something of its own
      const without = {...args} as Record<string, unknown>
      delete without[name]
      const withoutIt = name === 'command' || name === 'shell' || name === 'prompt' ? plain : startOptions(without as never)
      expect([name, JSON.stringify(startOptions(args)) !== JSON.stringify(withoutIt)]).toEqual([name, true])
    }
  })

  it('returns what each description promises, under the keys its output schema requires', () => {
    for (const tool of TOOLS) {
      const {outputSchema, description} = listedTool(tool)
      expect([tool.name, outputSchema.type, [...(outputSchema.required ?? [])].sort()]).toEqual([tool.name, 'object', [...OUTPUTS[tool.name]].sort()])
      const promised = /Returns \{([^}]*)\}/.exec(description)?.[1].split(',').map((key) => key.trim())
      expect([tool.name, promised?.every((key) => OUTPUTS[tool.name].includes(key))]).toEqual([tool.name, true])
    }
    // a task in a result is typed where a client reads it
    const task = listedTool(TOOLS.find((t) => t.name === 'get_task')!).outputSchema.properties!.task as {required: string[]}
    expect(task.required).toEqual(expect.arrayContaining(['id', 'name', 'status', 'exitCode', 'command', 'cwd', 'agent', 'runnerAlive', 'workerAlive', 'resume']))
  })

  it('annotates each tool as documented: what only reads, what ends or removes tasks, what is safe to repeat, what reaches beyond drover', () => {
    for (const tool of TOOLS) {
      const {annotations, title} = listedTool(tool)
      const {readOnlyHint, destructiveHint, idempotentHint, openWorldHint} = annotations
      expect([tool.name, {readOnlyHint, destructiveHint, idempotentHint, openWorldHint}]).toEqual([tool.name, ANNOTATIONS[tool.name]])
      expect(title.length).toBeGreaterThan(5)
      // only tools that change nothing are offered by --read-only
      expect([tool.name, tool.access === 'read']).toEqual([tool.name, readOnlyHint])
    }
  })

  it('tells a model, where it matters, that tasks outlive the session and a timeout stops nothing', () => {
    const description = (name: string) => TOOLS.find((t) => t.name === name)!.description
    for (const name of ['start_task', 'resume_task']) {
      expect(description(name)).toMatch(/keep running when the MCP client disconnects or this server exits/)
      expect(description(name)).toMatch(/stop_task, cancel_task or drain_tasks/)
    }
    expect(description('wait_tasks')).toMatch(/A timeout does not stop anything: the tasks keep running/)
    expect(description('cancel_task')).toMatch(/never resumed/)
    expect(description('drain_tasks')).toMatch(/resume_task/)
    expect(description('list_tasks')).toMatch(/started by anyone on this state dir/)
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
