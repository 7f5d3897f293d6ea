import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import type {FollowupJson, FollowupsJson, WithdrawnJson} from '../../api/followups.js'
import {usageError} from '../../api/values.js'
import {promptLine} from '../../api/task-json.js'
import {localTime} from '../render/time.js'

export default class Followups extends BaseCommand {
  static override summary = 'List the follow-ups queued for an agent, or withdraw them.'
  static override description = `A follow-up is a prompt given to an agent still at work (drover resume TASK --prompt "…"): when its run ends well, drover resumes the same session with it as the next run, one run each, in the order shown here — those given with --now first. Each has a number in its task, which --withdraw takes (--withdraw all withdraws every one).

A follow-up is dropped when the run fails, is stopped or cancelled, unless it was queued with --keep (a cancel drops those too); the drops are listed below the queue with their reason, and in status. A drained or interrupted task keeps its follow-ups: the next drover resume TASK delivers the first one when no --prompt is given.

Withdrawing one that was delivered or dropped already exits 4, one that never was exits 3; nothing is withdrawn then.`

  static override examples = [
    {description: 'What will the agent be told next?', command: '<%= config.bin %> followups 7'},
    {description: 'Withdraw follow-up 2', command: '<%= config.bin %> followups 7 --withdraw 2'},
    {description: 'Withdraw them all', command: '<%= config.bin %> followups fix-tests --withdraw all'},
  ]

  static override args = {task: Args.string({description: 'task id or name (:latest for the newest task)', required: true})}

  static override flags = {
    withdraw: Flags.string({description: 'withdraw the follow-up of this number, or `all` (may be given more than once)', multiple: true, helpValue: 'N|all'}),
  }

  async run(): Promise<FollowupsJson | WithdrawnJson> {
    const {args, flags} = await this.parse(Followups)
    const which = flags.withdraw === undefined ? null : chosen(flags.withdraw)
    const drover = await this.drover(flags['state-dir'])
    if (which !== null) {
      const result = await drover.withdrawFollowups(args.task, which)
      if (!this.jsonEnabled()) {
        const numbers = result.withdrawn.map((f) => f.n)
        process.stdout.write(numbers.length === 0 ? `task ${result.id} had no follow-ups queued\n` : `task ${result.id}: withdrew follow-up${numbers.length === 1 ? '' : 's'} ${numbers.join(', ')}; ${result.pending.length} still queued\n`)
      }
      return result
    }
    const list = await drover.followups(args.task)
    if (!this.jsonEnabled()) process.stdout.write(renderFollowups(list))
    return list
  }
}

/** `--withdraw 2 --withdraw 3` or `--withdraw all`: numbers, or every one. */
function chosen(values: string[]): number[] | 'all' {
  if (values.includes('all')) {
    if (values.length > 1) throw usageError('--withdraw all withdraws every follow-up: give it alone')
    return 'all'
  }
  return values.map((v) => {
    if (!/^\d{1,9}$/.test(v) || Number(v) === 0) throw usageError(`--withdraw takes a follow-up's number (drover followups TASK lists them) or all, not '${v}'`)
    return Number(v)
  })
}

const oneLine = (text: string) => promptLine(text, 100)

function line(f: FollowupJson): string {
  const marks = [f.now ? 'now' : '', f.keep ? 'keep' : ''].filter(Boolean).join(',')
  return `  ${String(f.n).padStart(3)}  ${localTime(f.at)}  ${marks.padEnd(8)}  ${oneLine(f.prompt)}\n`
}

export function renderFollowups(list: FollowupsJson): string {
  let text = list.pending.length === 0 ? `task ${list.id} (${list.status}): no follow-ups queued\n` : `task ${list.id} (${list.status}): ${list.pending.length} follow-up${list.pending.length === 1 ? '' : 's'} queued, delivered in this order\n`
  for (const f of list.pending) text += line(f)
  if (list.dropped.length > 0) {
    text += 'dropped:\n'
    for (const d of list.dropped) text += `  ${String(d.n).padStart(3)}  ${localTime(d.droppedAt)}  ${oneLine(d.prompt)}\n         ${oneLine(d.reason)}\n`
  }
  return text
}
