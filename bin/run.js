#!/usr/bin/env node
// CommonJS (bin/package.json): --version, piped help and the hot commands
// (list, status, start, logs, wait) reach their answer without Node's ES
// module loader, whose start-up was a tenth of `node -e 0` before the first
// module (docs/decisions/0039-start-up-against-the-true-floor.md). Everything
// else goes to oclif, as ES modules.
'use strict'

// Node ≥ 22.1 keeps compiled code of every module it loads in a cache of its
// own (the ES modules too, which Node 20 cannot cache); older Nodes have no
// such function. (drover's and oclif's bundles are cached on any Node:
// dist/cli-bundle/vendor/cached.cjs.)
require('node:module').enableCompileCache?.()

main().catch((error) => {
  process.exitCode = 1
  throw error
})

async function main() {
  let argv = process.argv.slice(2)
  let boot = null
  try {
    boot = require('../dist/cli-bundle/boot.cjs')
    argv = boot.argv.hoistGlobalFlags(argv)
  } catch {
    // not built yet: oclif reports that itself
  }
  const asksForHelp = boot === null ? () => false : boot.argv.asksForHelp

  // `start` ends by waiting for a runner — a second Node process — to boot. Booting
  // it first, before anything else of drover or oclif loads, lets the two
  // start-ups overlap the most (runner/standby loads builtins and one small module);
  // anything else goes straight on. A task going to Slurm has its runner in a
  // batch job: none is booted for it (with the default state dir, whose
  // config.json takes env-paths to find, it is booted and let go).
  if (boot !== null && argv[0] === 'start' && !asksForHelp(argv)) {
    try {
      const {prespawnRunner, standbyVerdict} = boot.standby
      const verdict = standbyVerdict(argv.slice(1))
      if (verdict !== 'none') prespawnRunner()
      // not awaited: the command need not wait for the default state dir's config
      if (verdict === 'boot-then-check') import('../dist/api/standby.js').then((m) => m.dropStandbyIfSlurm()).catch(() => {})
    } catch {
      // no runner: start spawns one itself when it needs it
    }
  }

  // A reader that goes away (`drover list | head -1`) ends drover at once and
  // quietly, with the status a shell reports for a process killed by SIGPIPE
  // (128 + 13 = 141), as cat, git and docker end; Node itself ignores SIGPIPE and
  // would print a stack instead. Once here, for every command and for help.
  const onStreamError = (error) => {
    if (error.code === 'EPIPE') process.exit(141)
    throw error
  }
  process.stdout.on('error', onStreamError)
  process.stderr.on('error', onStreamError)

  // `--version` and help to a pipe, printed as oclif prints them without loading
  // it (see dist/cli/fast-paths.js); null whenever oclif must decide.
  const {readFileSync} = require('node:fs')
  const path = require('node:path')
  const read = (file) => JSON.parse(readFileSync(path.join(__dirname, file), 'utf8'))
  let pjson = null
  let answer = null
  // `drover task-refs`, which a completion script runs on every Tab for a TASK
  // argument: answered without oclif either (dist/cli/completion/refs-answer.js),
  // null for any command line it does not expect.
  if (argv[0] === 'task-refs' && !asksForHelp(argv)) {
    try {
      answer = await (await import('../dist/cli/completion/refs-answer.js')).refsAnswer(argv)
    } catch {
      // not built yet: oclif answers
    }
  }
  if (answer === null && boot !== null) {
    try {
      const fast = boot.fastPaths
      pjson = read('../package.json')
      answer = fast.versionLine(argv, pjson)
      const subject = answer === null ? fast.helpSubject(argv) : null
      if (subject !== null && fast.helpIsPlain(process.env, process.stdout.isTTY)) {
        answer = fast.helpText(read('../dist/cli-bundle/help.json'), subject, fast.userAgent(pjson))
      }
    } catch {
      // not built yet: oclif answers
    }
  }

  // Written, not followed by process.exit(): a pipe may take the text after this returns.
  if (answer !== null) {
    process.stdout.write(answer)
    return
  }
  const root = path.resolve(__dirname, '..')
  // The hot commands without oclif's Config.load (src/cli/hot.ts); null when oclif must run it.
  let ran = null
  if (boot !== null && pjson !== null && boot.argv.goesHot(argv)) {
    try {
      const bundles = require('../dist/cli-bundle/vendor/bundles.cjs')
      globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}
      const drover = bundles.drover().exports
      ran = await drover.hot.runHot({root, pjson}, argv[0], argv.slice(1), drover.commands[argv[0]])
    } catch (error) {
      if (error?.code !== 'MODULE_NOT_FOUND') throw error
      // not built yet: oclif reports that itself
    }
  }
  if (ran === null) await runOclif(argv, root, pjson, asksForHelp)
  // `list` ends holding every task's row or view (100,000 of them): a natural
  // exit tears that heap down first, which cost it 3% of its instructions at
  // 10,000 tasks. It has nothing left to do once its output is out, so it
  // exits as soon as stdout and stderr have taken everything written to them
  // (a pipe on Windows writes asynchronously).
  if (argv[0] === 'list') {
    const flushed = (stream) => new Promise((resolve) => stream.write('', resolve))
    await flushed(process.stdout)
    await flushed(process.stderr)
    process.exit()
  }
}

async function runOclif(argv, root, pjson, asksForHelp) {
  // This is the built CLI: oclif must not look for TypeScript sources of the
  // bundle (it does under NODE_ENV=test or development); bin/dev.mjs runs sources.
  globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}

  // A run of one of drover's own commands does not need the help plugin (it
  // adds its own command, no hooks): oclif gets the package.json read above
  // without it, so it neither looks for nor loads it.
  const {existsSync} = require('node:fs')
  const path = require('node:path')
  const ownCommand = (word) => /^[a-z][a-z-]*$/.test(word ?? '') && existsSync(path.join(root, 'dist', 'cli-bundle', 'commands', `${word}.js`))
  let loadOptions
  if (pjson !== null && !asksForHelp(argv) && ownCommand(argv[0])) {
    loadOptions = {root, pjson: {...pjson, oclif: {...pjson.oclif, plugins: []}}}
  }

  // The bundle of oclif and the commands (scripts/bundle-cli.mjs); before a build, oclif as installed.
  // oclif finds the package from `dir`: its root, since bin/ holds a package.json of its own.
  const {execute} = await import('../dist/cli-bundle/core/main.js').catch(() => import('@oclif/core/execute'))
  await execute({args: argv, dir: root, loadOptions})
}
