// Renders drover's help — its own and every command's — as oclif prints it to a
// pipe, into dist/cli-bundle/help.json, for bin/run.js to print without
// loading oclif (see src/cli/fast-paths.ts). Runs after `oclif manifest`.
// oclif fixes the help width when its screen module loads (80 columns when
// stdout is not a terminal), so the rendering happens in a child whose stdout
// is a pipe, with the variables that would change it removed.

import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const OUT = path.join(ROOT, 'dist', 'cli-bundle', 'help.json')

if (process.argv[2] === '--child') {
  const {USER_AGENT_MARK} = await import('../dist/cli/fast-paths.js')
  const {Config} = await import('@oclif/core/config')
  const {loadHelpClass} = await import('@oclif/core/help')
  const config = await Config.load(ROOT)
  const Help = await loadHelpClass(config)
  const subjects = ['', ...config.commands.filter((c) => !c.hidden && c.pluginType === 'core').map((c) => c.id)]
  const rendered = {}
  const write = process.stdout.write.bind(process.stdout)
  for (const subject of subjects) {
    let text = ''
    process.stdout.write = (chunk) => {
      text += String(chunk)
      return true
    }
    try {
      await new Help(config, config.pjson.oclif.helpOptions ?? config.pjson.helpOptions).showHelp(subject === '' ? [] : [subject])
    } finally {
      process.stdout.write = write
    }
    // The running Node and platform fill it in (USER_AGENT_MARK in src/cli/fast-paths.ts).
    rendered[subject] = text.replaceAll(config.userAgent, USER_AGENT_MARK)
  }
  write(JSON.stringify(rendered))
} else {
  const env = {...process.env}
  for (const name of ['OCLIF_COLUMNS', 'FORCE_COLOR', 'NO_COLOR']) delete env[name]
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child'], {env, cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26})
  if (child.status !== 0) throw new Error(`render-help: the child exited ${child.status ?? child.signal}`)
  writeFileSync(OUT, child.stdout)
}
