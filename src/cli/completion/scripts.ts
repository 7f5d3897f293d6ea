// The completion script for each shell `drover completion` knows.

import {bashScript} from './bash.js'
import {fishScript} from './fish.js'
import {powershellScript} from './powershell.js'
import {isPlainWord, type CommandSpec} from './spec.js'
import {zshScript} from './zsh.js'

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const
export type Shell = (typeof SHELLS)[number]

const GENERATORS: Record<Shell, (specs: readonly CommandSpec[], bin: string) => string> = {
  bash: bashScript,
  zsh: zshScript,
  fish: fishScript,
  powershell: powershellScript,
}

export function completionScript(shell: Shell, specs: readonly CommandSpec[], bin: string): string {
  // The scripts embed commands, flags and fixed values unquoted (bash's case
  // patterns, fish's -a lists): anything else would be a defect of a command's definition.
  const words = [bin, ...specs.flatMap((c) => [c.id, ...c.firstArgOptions, ...c.flags.flatMap((f) => [...f.long, ...(f.short ? [f.short] : []), ...f.options])])]
  const odd = words.find((w) => !isPlainWord(w))
  if (odd !== undefined) throw new Error(`cannot embed ${JSON.stringify(odd)} in a completion script`)
  return GENERATORS[shell](specs, bin)
}
