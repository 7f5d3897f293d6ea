// `drover task-refs`, answered by bin/run.js before oclif loads: a completion
// script calls it on every Tab, and loading oclif would be most of its cost.
// Only the shapes the scripts send are answered here (--json is not one of
// them); anything else is null and goes to oclif (src/cli/commands/task-refs.ts),
// which answers the same.

import {completeTaskRefs, formatCandidates} from '../../api/completion.js'

export async function refsAnswer(argv: readonly string[]): Promise<string | null> {
  if (argv[0] !== 'task-refs') return null
  let stateDir: string | undefined
  const words: string[] = []
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]
    if (word === '--') words.push(...argv.slice(i + 1))
    else if (word === '--state-dir' && i + 1 < argv.length) stateDir = argv[++i]
    else if (word.startsWith('--state-dir=')) stateDir = word.slice('--state-dir='.length)
    else if (word.startsWith('-')) return null
    else words.push(word)
    if (word === '--') break
  }
  if (words.length > 1) return null
  try {
    const candidates = await completeTaskRefs({stateDir, word: words[0]})
    return formatCandidates(candidates)
  } catch {
    return null // oclif reports it, with drover's exit code
  }
}
