// Jobs a test releases one by one (test/fixtures/queue-job.mjs): each marks
// when it started and waits for its go file, so a test sees exactly which ran.

import {existsSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fixture, makeTempDir, readTask} from './cli.js'

const JOB = fixture('queue-job.mjs')

export function jobs() {
  const dir = makeTempDir('drover-jobs-')
  return {
    dir,
    argv: (name: string, code = 0) => ['--', process.execPath, JOB, dir, name, String(code)],
    started: (name: string) => existsSync(path.join(dir, `${name}.started`)),
    release: (name: string) => writeFileSync(path.join(dir, `${name}.go`), ''),
  }
}

export const statusOf = (stateDir: string, id: number) => readTask(stateDir, id).status as string
