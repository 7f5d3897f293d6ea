// Learning an agent's grammar (flags.ts) by running its `--help`, cached
// in the state dir per binary. Used by `resume`, by the commands that queue a
// follow-up (so the cache is warm), and by a runner delivering one; `start`
// does not pay for it. No node:crypto: a runner that loads it carries ~2 MB
// more for the rest of its life, and a cache key need not resist an attacker.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, realpathSync, statSync} from 'node:fs'
import path from 'node:path'
import {FlagTable, parseHelpFlags, type FlagSpec, type HelpGrammar} from './flags.js'
import {writeFileAtomic} from '../state/store.js'

export class FlagLearningError extends Error {}

// Fewer options than this in a help text means it was no help text (an error, a banner).
export const MIN_FLAGS = 3
const HELP_TIMEOUT_MS = 20_000

/**
 * The options a help text lists, from stdout, else from stderr: yargs prints
 * a subcommand's help to stderr (`opencode run --help`), commander and clap
 * to stdout. `drover doctor` reads help the same way, so what it says about
 * an agent's grammar is what resume will find.
 */
export function helpSpecs(stdout: string, stderr: string, grammar?: HelpGrammar): FlagSpec[] {
  const specs = parseHelpFlags(stdout, grammar)
  return specs.length >= MIN_FLAGS ? specs : parseHelpFlags(stderr, grammar)
}

/**
 * The agent's flags from `argv` (e.g. [claude, '--help'] or [codex, 'exec',
 * '--help']), cached in the state dir under a key made of the argv and each
 * file in it (real path, size, mtime): a new install or upgrade learns again.
 */
export function learnFlags(stateDir: string, argv: string[], opts: {env: NodeJS.ProcessEnv; cwd: string; grammar?: HelpGrammar}): FlagTable {
  const cacheFile = path.join(stateDir, 'cache', `agent-flags-${cacheKey(argv, opts.cwd)}.json`)
  try {
    const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as FlagSpec[]
    if (Array.isArray(cached) && cached.length >= MIN_FLAGS) return new FlagTable(cached)
  } catch {
    // not learnt yet, or unreadable: learn again
  }
  const run = spawnSync(argv[0], argv.slice(1), {
    encoding: 'utf8',
    env: opts.env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: HELP_TIMEOUT_MS,
    windowsHide: true,
    maxBuffer: 4 * 1024 * 1024,
  })
  if (run.error || run.status !== 0) {
    const code = (run.error as NodeJS.ErrnoException | undefined)?.code
    // Node reports a missing cwd as ENOENT of the program: name what is really missing.
    const missing = code === 'ENOENT' ? (existsSync(opts.cwd) ? 'not found' : `working directory does not exist: ${opts.cwd}`) : null
    const detail = missing ?? (String(run.stderr ?? '').trim().split('\n')[0] || run.error?.message || `exit ${run.status ?? run.signal}`)
    throw new FlagLearningError(`cannot read its flags with \`${path.basename(argv[0])} ${argv.slice(1).join(' ')}\`: ${detail}`)
  }
  const specs = helpSpecs(run.stdout, run.stderr, opts.grammar)
  if (specs.length < MIN_FLAGS) throw new FlagLearningError(`\`${path.basename(argv[0])} ${argv.slice(1).join(' ')}\` printed no options drover could read`)
  try {
    mkdirSync(path.dirname(cacheFile), {recursive: true, mode: 0o700})
    writeFileAtomic(cacheFile, JSON.stringify(specs) + '\n')
  } catch {
    // a read-only state dir still resumes; it learns again next time
  }
  return new FlagTable(specs)
}

function cacheKey(argv: string[], cwd: string): string {
  let text = ''
  for (const arg of argv) {
    text += arg + '\0'
    try {
      const file = realpathSync(path.resolve(cwd, arg))
      const stat = statSync(file)
      if (stat.isFile()) text += `${file}\0${stat.size}\0${stat.mtimeMs}\0`
    } catch {
      // not a file: the text alone is the key
    }
  }
  return [0x811c9dc5, 0x050c5d1f, 0x1f3d5b79].map((seed) => fnv1a(text, seed).toString(16).padStart(8, '0')).join('')
}

/** FNV-1a over UTF-16 code units: 32 bits per seed, three seeds make the key's 96. */
function fnv1a(text: string, seed: number): number {
  let hash = seed
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0
  return hash
}
