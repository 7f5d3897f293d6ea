// The zsh completion script: the same reading of the line as bash's
// (bash.ts), with descriptions for commands, flags and tasks. It works both
// eval'd (it registers itself with compdef) and saved as _drover in $fpath.

import type {CommandSpec} from './spec.js'
import {GLOBAL_SWITCHES, GLOBAL_WITH_VALUE} from './spec.js'

/** A word for a zsh single-quoted string. */
const q = (text: string) => `'${text.replaceAll("'", "'\\''")}'`
/** `word:description` for _describe: a colon in the word is escaped. */
const described = (word: string, description: string) => q(`${word.replaceAll(':', '\\:')}:${description}`)

function specCase(c: CommandSpec): string {
  const flagWords = c.flags.flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])].map((w) => described(w, f.description)))
  const valued = c.flags.filter((f) => f.takesValue).flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])])
  const task = c.flags.filter((f) => f.task).flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])])
  return [
    `    ${c.id})`,
    `      __drover_flags=(${flagWords.join(' ')})`,
    `      __drover_vflags=(${valued.join(' ')}); __drover_tflags=(${task.join(' ')}); __drover_task=${c.task}; __drover_args=(${c.firstArgOptions.join(' ')});;`,
  ].join('\n')
}

function valueCases(specs: readonly CommandSpec[]): string {
  const lines: string[] = []
  for (const c of specs) {
    for (const f of c.flags) {
      if (f.options.length === 0) continue
      const keys = [...f.long, ...(f.short ? [f.short] : [])].map((k) => q(`${c.id} ${k}`)).join('|')
      lines.push(`    ${keys}) __drover_words=(${f.options.join(' ')});;`)
    }
  }
  return lines.join('\n')
}

export function zshScript(specs: readonly CommandSpec[], bin: string): string {
  const commands = specs.map((c) => described(c.id, c.summary)).join(' \\\n    ')
  return `#compdef ${bin}
# ${bin} completion for zsh: commands, flags, and TASK arguments (ids, names,
# :latest). Load it from ~/.zshrc, after compinit:
#   eval "$(${bin} completion zsh)"
# or save it as _${bin} in a directory of $fpath.

__drover_spec() {
  case $1 in
${specs.map(specCase).join('\n')}
  esac
}

__drover_values() {
  __drover_words=()
  case "$1 $2" in
${valueCases(specs)}
  esac
}

__drover_tasks() {
  local prog=\${(Q)words[1]} line
  [[ $prog == '~/'* ]] && prog=$HOME/\${prog#\\~/}
  local -a ask refs
  ask=("$prog" task-refs)
  [[ -n $__drover_state ]] && ask+=(--state-dir "$__drover_state")
  for line in "\${(@f)$("\${ask[@]}" -- "$PREFIX" 2>/dev/null)}"; do
    [[ -z $line || $line != *$'\\t'* ]] && continue
    refs+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
  done
  _describe -t tasks 'task' refs
}

_${bin}() {
  local -a __drover_commands __drover_flags __drover_vflags __drover_tflags __drover_args __drover_words
  __drover_commands=(
    ${commands}
  )
  local __drover_task=none __drover_state= cmd= expect= dash= first= w
  local -i i pos=0
  for ((i = 2; i < CURRENT; i++)); do
    w=\${(Q)words[i]}
    if [[ -n $expect ]]; then
      [[ $expect == --state-dir ]] && __drover_state=$w
      expect=
    elif [[ -n $dash ]]; then
      :
    elif [[ -n $cmd && $w == -- ]]; then
      dash=1
    elif [[ $w == --state-dir=* ]]; then
      __drover_state=\${w#*=}
    elif [[ $w == -* ]]; then
      [[ $w == --state-dir || ( -n $cmd && \${__drover_vflags[(Ie)$w]} -gt 0 ) ]] && expect=$w
    elif [[ -z $cmd ]]; then
      cmd=$w
      __drover_spec "$cmd"
    else
      ((pos == 0)) && first=$w
      ((pos++))
    fi
  done
  [[ $__drover_state == '~/'* ]] && __drover_state=$HOME/\${__drover_state#\\~/}
  local cur=\${words[CURRENT]}

  if [[ -n $dash ]]; then
    _files
  elif [[ -n $expect ]]; then
    if ((\${__drover_tflags[(Ie)$expect]})); then
      __drover_tasks
    else
      __drover_values "$cmd" "$expect"
      if ((\${#__drover_words})); then compadd -a __drover_words; else _files; fi
    fi
  elif [[ $cur == -*=* ]]; then
    _files
  elif [[ $cur == -* ]]; then
    if [[ -z $cmd ]]; then compadd -- ${[...GLOBAL_SWITCHES, ...GLOBAL_WITH_VALUE].join(' ')}; else _describe -t flags 'flag' __drover_flags; fi
  elif [[ -z $cmd || $cmd == help ]]; then
    _describe -t commands '${bin} command' __drover_commands
  elif [[ $__drover_task == all || ( $__drover_task == first && $pos == 0 ) || ( $__drover_task == move && $pos == 1 && $first == move ) ]]; then
    __drover_tasks
  elif ((pos == 0 && \${#__drover_args})); then
    compadd -a __drover_args
  fi
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _${bin} "$@"
else
  compdef _${bin} ${bin}
fi
`
}
