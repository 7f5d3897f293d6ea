import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {checkLabel, formatDuration, outcomeLabel, parseDuration} from '../../api/values.js'
import type {AttemptJson, ComparisonJson} from '../../api/compare.js'
import {painter, statusStyle} from '../render/color.js'
import {renderTable, terminalWidth, type Column} from '../render/table.js'

// Which give way first on a narrow terminal: the figures before what the attempt did and what its check said.
const COLUMNS: Column[] = [
  {header: 'ID'},
  {header: 'NAME', shrink: true, minWidth: 10},
  {header: 'AGENT', dropOrder: 1},
  {header: 'STATUS'},
  {header: 'TURNS', dropOrder: 3},
  {header: 'TOKENS', dropOrder: 2},
  {header: 'COST', dropOrder: 4},
  {header: 'RUNTIME', dropOrder: 5},
  {header: 'FILES'},
  {header: '+/-'},
  {header: 'CHECK', shrink: true, minWidth: 6},
]

/** 12345 → `12.3k`, 4_500_000 → `4.5M`. */
function shortCount(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

export default class Compare extends BaseCommand {
  static override summary = "A group's attempts side by side: how each ended, what it cost, what it changed, what its check said."
  static override description = `For a group (a fan-out's attempts: drover start --agent claude:2,codex --prompt P --worktree, or tasks started with --group), one row per attempt: its status, the agent's turns, tokens (input plus output) and cost over its whole session, its runtime, the work in its worktree against the base commit (files changed, lines added and removed, committed or not, read from git now; as its last run left it when the folder is gone), and its check's result (start --check CMD, or config.json's check): passed, failed (exit N), running, or — while the attempt works — nothing yet.

GROUP is the group's name, or a task id of one of its attempts. --wait waits until every attempt has ended and its check is done (--timeout bounds it). A check whose process was killed (the machine restarted) reads failed, interrupted, from then on, and what it started is stopped. --json prints {group, base, sameBase, attempts: [{id, name, agent, status, cause, reason, exitCode, signal, turns, inputTokens, outputTokens, costUsd, runtimeMs, work: {files, insertions, deletions, commits, uncommitted, present}, branch, merged, check: {command, result: {run, status, exitCode, signal, reason, output, outputBytes, startedAt, endedAt, checker}}, settled}], settled}; a check's output is the last 8 KiB it wrote.

Keep the one you want and throw the rest away in two commands: drover merge ATTEMPT, then drover rm --group GROUP --discard (the merged branch's work is in its target, so nothing of it is lost).`

  static override examples = [
    {description: 'The attempts of group auth, once each has ended and been checked', command: '<%= config.bin %> compare auth --wait'},
    {description: 'Keep the winner, discard the rest', command: '<%= config.bin %> merge auth-codex-1 && <%= config.bin %> rm --group auth --discard'},
    {description: 'The attempts whose check passed, for a script', command: "<%= config.bin %> compare auth --json | jq '.attempts[] | select(.check.result.status == \"passed\") | .id'"},
  ]

  static override args = {
    group: Args.string({description: "the group's name, or a task id of one of its attempts", required: true}),
  }

  static override flags = {
    wait: Flags.boolean({description: 'wait until every attempt has ended and its check is done'}),
    timeout: Flags.string({description: 'with --wait: give up waiting after this long (e.g. 30m) and show them as they are', dependsOn: ['wait']}),
    'show-env': Flags.boolean({description: "show credentials in URLs of the checks' commands and output (masked as *** by default)"}),
  }

  async run(): Promise<ComparisonJson> {
    const {args, flags} = await this.parse(Compare)
    const timeoutMs = flags.timeout === undefined ? undefined : parseDuration(flags.timeout, '--timeout')
    const drover = await this.drover(flags['state-dir'])
    const abort = new AbortController()
    const onSigint = () => abort.abort()
    process.on('SIGINT', onSigint)
    let result: ComparisonJson
    try {
      result = await drover.compare(args.group, {wait: flags.wait, timeoutMs, signal: abort.signal, showEnv: flags['show-env']})
    } finally {
      process.off('SIGINT', onSigint)
    }
    if (!this.jsonEnabled()) this.print(result, this.color(flags.color))
    if (abort.signal.aborted) process.exitCode = 130
    return result
  }

  private print(result: ComparisonJson, color: boolean): void {
    const paint = painter(color)
    const base = result.base ? ` from ${result.base.commit.slice(0, 12)}${result.base.branch ? ` (${result.base.branch})` : ''}${result.sameBase ? '' : ', not all from one commit'}` : ''
    process.stdout.write(`group ${result.group}: ${result.attempts.length} attempt${result.attempts.length === 1 ? '' : 's'}${base}\n`)
    const rows = result.attempts.map((a) => {
      const label = outcomeLabel({status: a.status, cause: a.cause, exitCode: a.exitCode, signal: a.signal})
      const style = statusStyle(a.status)
      return [
        String(a.id),
        a.name ?? '',
        a.agent,
        style ? paint(style, label) : label,
        a.turns === null ? '' : String(a.turns),
        a.inputTokens === null && a.outputTokens === null ? '' : shortCount((a.inputTokens ?? 0) + (a.outputTokens ?? 0)),
        a.costUsd === null ? '' : `$${a.costUsd.toFixed(2)}`,
        a.runtimeMs === null ? '' : formatDuration(a.runtimeMs),
        a.work ? `${a.work.files}${a.work.uncommitted ? '*' : ''}` : '',
        a.work ? `+${a.work.insertions} -${a.work.deletions}` : '',
        checkCell(a, paint),
      ]
    })
    process.stdout.write(renderTable(COLUMNS, rows, terminalWidth()) + '\n')
    const notes: string[] = []
    if (result.attempts.some((a) => a.work?.uncommitted)) notes.push('* uncommitted work in the worktree (drover merge --commit commits it first)')
    const merged = result.attempts.find((a) => a.merged)
    if (merged) notes.push(`task ${merged.id} was merged into ${merged.merged!.into}: drover rm --group ${result.group} --discard throws the others away`)
    else if (result.settled) notes.push(`keep one: drover merge ID, then drover rm --group ${result.group} --discard`)
    else notes.push(`not all done yet: drover compare ${result.group} --wait shows them once every attempt has ended and been checked`)
    for (const note of notes) this.note(note)
  }
}

/** The check's result, painted as a status would be; empty without a check. */
function checkCell(a: AttemptJson, paint: ReturnType<typeof painter>): string {
  if (!a.check) return ''
  const result = a.check.result
  if (!result) return a.settled ? 'not run' : ''
  const label = checkLabel(result)
  return result.status === 'passed' ? paint('green', label) : result.status === 'failed' ? paint('red', label) : label
}
