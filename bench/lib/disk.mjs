// What one ended task costs on disk: real tasks (`start -- true`, run to their
// end, then `list` so their live hints are dropped as they would be), each
// task folder walked with lstat: bytes written (file sizes), bytes allocated
// (st_blocks × 512, directories included) and inodes, and which entries
// those come from.

import {lstatSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {startedId, waitFinal} from './cli-cases.mjs'
import {row} from './report.mjs'
import {drover} from './util.mjs'

const TASKS = 20

/** Every entry under dir (dir included): [relative path, lstat]. */
function walk(dir, rel = '.') {
  const stat = lstatSync(dir)
  const out = [[rel, stat]]
  if (stat.isDirectory()) for (const name of readdirSync(dir).sort()) out.push(...walk(path.join(dir, name), rel === '.' ? name : `${rel}/${name}`))
  return out
}

export async function disk(ctx) {
  const stateDir = ctx.dirs.fresh('disk')
  const ids = []
  for (let i = 0; i < TASKS; i++) {
    // the first one named, for the name lookup below
    const id = startedId(drover(stateDir, ['start', ...(i === 0 ? ['--name', 'disk-first'] : []), '--', 'true']))
    await waitFinal(stateDir, id)
    ids.push(id)
  }
  drover(stateDir, ['list'])
  const hints = readdirSync(path.join(stateDir, 'live')).length
  // per entry name: [count, bytes, allocated]
  const parts = new Map()
  let bytes = 0
  let allocated = 0
  let inodes = 0
  for (const id of ids) {
    for (const [rel, stat] of walk(path.join(stateDir, 'tasks', String(id)))) {
      const name = stat.isDirectory() ? `${rel === '.' ? '<task folder>' : rel}/` : rel
      const part = parts.get(name) ?? [0, 0, 0]
      part[0]++
      part[1] += stat.isDirectory() ? 0 : stat.size
      part[2] += stat.blocks * 512
      parts.set(name, part)
      bytes += stat.isDirectory() ? 0 : stat.size
      allocated += stat.blocks * 512
      inodes++
    }
  }
  const per = (n) => Math.round(n / TASKS)
  const breakdown = [...parts.entries()]
    .sort((a, b) => b[1][2] - a[1][2] || a[0].localeCompare(b[0]))
    .map(([name, [count, size, alloc]]) => `${name} ${per(alloc)} B allocated / ${per(size)} B written${count === TASKS ? '' : ` (${count} of ${TASKS})`}`)
    .join('; ')
  const block = lstatSync(stateDir).blksize
  // The derived index beside the folders: the segment the list folded them
  // into (its record, view, row and name columns), and the kept listing.
  drover(stateDir, ['list', '--json'])
  drover(stateDir, ['list', '--all'])
  drover(stateDir, ['status', 'disk-first'])
  const kinds = new Map()
  let indexBytes = 0
  for (const [rel, stat] of walk(path.join(stateDir, 'index'))) {
    if (stat.isDirectory()) continue
    const kind = rel.replace(/^seg-\d+$/, 'seg-<seq>')
    kinds.set(kind, (kinds.get(kind) ?? 0) + stat.size)
    indexBytes += stat.size
  }
  const indexParts = [...kinds.entries()].sort((a, b) => b[1] - a[1]).map(([kind, size]) => `${kind} ${per(size)} B`).join('; ')
  return [
    row('disk: bytes allocated per ended task', per(allocated), '', null, 'B', null, `${TASKS} real \`start -- true\` tasks, ended, after \`list\` (${hints} live hints left); file system block ${block} B; by entry: ${breakdown}`),
    row('disk: bytes written per ended task', per(bytes), '', null, 'B', null, 'the files\' sizes: record, events journal, runner log, process tree; output.log empty'),
    row('disk: inodes per ended task', inodes / TASKS, '', null, 'inodes', null, 'the task folder, its requests/ and session/ folders and every file in them'),
    row('disk: index bytes per ended task', per(indexBytes), '', null, 'B', null, `index/ after \`list\`, \`list --json\`, \`list --all\` and a name lookup, over the ${TASKS} tasks: ${indexParts}`),
  ]
}
