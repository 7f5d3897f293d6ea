#!/usr/bin/env node
let argv = process.argv.slice(2)
let asksForHelp = () => false
try {
  const cli = await import('../dist/cli/argv.js')
  argv = cli.hoistGlobalFlags(argv)
  asksForHelp = cli.asksForHelp
} catch {
  // not built yet: oclif reports that itself
}

// `start` ends by waiting for a runner — a second Node process — to boot. Booting
// it first, before anything else of drover or oclif loads, lets the two
// start-ups overlap the most (dist/runner/standby.js loads builtins and one small module);
// anything else goes straight on. A task going to Slurm has its runner in a
// batch job: none is booted for it (with the default state dir, whose
// config.json takes env-paths to find, it is booted and let go).
if (argv[0] === 'start' && !asksForHelp(argv)) {
  try {
    const {prespawnRunner, standbyVerdict} = await import('../dist/runner/standby.js')
    const verdict = standbyVerdict(argv.slice(1))
    if (verdict !== 'none') prespawnRunner()
    // not awaited: oclif need not wait for the default state dir's config
    if (verdict === 'boot-then-check') import('../dist/api/standby.js').then((m) => m.dropStandbyIfSlurm()).catch(() => {})
  } catch {
    // not built yet, or no runner: start spawns one itself when it needs it
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

// Node ≥ 22.1 keeps compiled code of every module it loads in a cache of its
// own (the ES modules too, which Node 20 cannot cache); older Nodes have no
// such function. (oclif itself is cached on any Node: dist/cli-bundle/vendor.)
const {default: nodeModule} = await import('node:module')
nodeModule.enableCompileCache?.()

// `--version` and help to a pipe, printed as oclif prints them without loading
// it (see dist/cli/fast-paths.js); null whenever oclif must decide.
const {existsSync, readFileSync} = await import('node:fs')
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
if (answer === null) {
  try {
    const fast = await import('../dist/cli/fast-paths.js')
    const read = (file) => JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8'))
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
if (answer !== null) process.stdout.write(answer)
else {
  await runOclif()
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

async function runOclif() {
  // This is the built CLI: oclif must not look for TypeScript sources of the
  // bundle (it does under NODE_ENV=test or development); bin/dev.js runs sources.
  globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}

  // A run of one of drover's own commands does not need the help plugin (it
  // adds its own command, no hooks): oclif gets the package.json read above
  // without it, so it neither looks for nor loads it.
  const ownCommand = (word) => /^[a-z][a-z-]*$/.test(word ?? '') && existsSync(new URL(`../dist/cli-bundle/commands/${word}.js`, import.meta.url))
  let loadOptions
  if (pjson !== null && !asksForHelp(argv) && ownCommand(argv[0])) {
    const {fileURLToPath} = await import('node:url')
    loadOptions = {root: fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, ''), pjson: {...pjson, oclif: {...pjson.oclif, plugins: []}}}
  }

  // The bundle of oclif and the commands (scripts/bundle-cli.mjs); before a build, oclif as installed.
  const {execute} = await import('../dist/cli-bundle/core/main.js').catch(() => import('@oclif/core/execute'))
  await execute({args: argv, dir: import.meta.url, loadOptions})
}
