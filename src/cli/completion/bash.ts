// The bash completion script. It runs in bash 3.2 too (macOS's), so no
// associative arrays: each command's flags come from a case statement. TASK
// candidates come from `drover task-refs`, which bin/run.js answers without
// loading oclif. Nothing typed is ever evaluated: words are compared, not
// expanded (compgen -W would expand them), and what is offered never needs
// quoting (commands, flags, ids, names, :latest).

import type {CommandSpec} from './spec.js'
import {GLOBAL_SWITCHES, GLOBAL_WITH_VALUE} from './spec.js'

const bar = (words: readonly string[]) => `|${words.join('|')}|`

function specCase(c: CommandSpec): string {
  const flags = c.flags.flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])])
  const valued = c.flags.filter((f) => f.takesValue).flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])])
  const task = c.flags.filter((f) => f.task).flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])])
  return `    ${c.id}) __drover_flags='${flags.join(' ')}'; __drover_vflags='${bar(valued)}'; __drover_tflags='${bar(task)}'; __drover_task=${c.task}; __drover_args='${c.firstArgOptions.join(' ')}';;`
}

function valueCases(specs: readonly CommandSpec[]): string {
  const lines: string[] = []
  for (const c of specs) {
    for (const f of c.flags) {
      if (f.options.length === 0) continue
      const keys = [...f.long, ...(f.short ? [f.short] : [])].map((k) => `'${c.id} ${k}'`).join('|')
      lines.push(`    ${keys}) __drover_words='${f.options.join(' ')}';;`)
    }
  }
  return lines.join('\n')
}

export function bashScript(specs: readonly CommandSpec[], bin: string): string {
  return `# ${bin} completion for bash: commands, flags, and TASK arguments (ids, names,
# :latest). Load it from ~/.bashrc:
#   eval "$(${bin} completion bash)"
# or save it where bash-completion finds it:
#   ${bin} completion bash > ~/.local/share/bash-completion/completions/${bin}

__drover_commands='${specs.map((c) => c.id).join(' ')}'
__drover_globals='${[...GLOBAL_SWITCHES, ...GLOBAL_WITH_VALUE].join(' ')}'

__drover_spec() {
  case $1 in
${specs.map(specCase).join('\n')}
    *) __drover_flags=; __drover_vflags='||'; __drover_tflags='||'; __drover_task=none; __drover_args=;;
  esac
}

__drover_values() {
  __drover_words=
  case "$1 $2" in
${valueCases(specs)}
  esac
}

# Offers the words of $1 that start with $2.
__drover_offer() {
  local w
  for w in $1; do [[ $w == "$2"* ]] && COMPREPLY+=("$w"); done
}

# Offers the tasks whose ref starts with $1: ids, names and :latest.
__drover_tasks() {
  local prog=\${COMP_WORDS[0]} ref rest
  [[ $prog == '~/'* ]] && prog=$HOME/\${prog:2}
  local -a ask=("$prog" task-refs)
  [[ -n $__drover_state ]] && ask+=(--state-dir "$__drover_state")
  while IFS=$'\\t' read -r ref rest; do
    [[ -n $ref && $ref == "$1"* ]] && COMPREPLY+=("$ref")
  done < <("\${ask[@]}" -- "$1" 2>/dev/null)
  compopt +o default 2>/dev/null
}

_${bin}() {
  COMPREPLY=()
  # The words up to the cursor as drover will see them: bash splits at ':' and
  # '=' as well (COMP_WORDBREAKS), which would cut :latest and --flag=value.
  local line=\${COMP_LINE:0:COMP_POINT} i w n=-1
  local -a words=()
  for ((i = 0; i <= COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if ((n < 0)) || [[ $line == [[:space:]]* ]]; then
      line=\${line#"\${line%%[![:space:]]*}"}
      words[++n]=$w
    else
      words[n]+=$w
    fi
    line=\${line#"$w"}
  done
  local cur=\${words[n]} cmd= expect= dash= pos=0 first= __drover_state=
  local __drover_flags= __drover_vflags='||' __drover_tflags='||' __drover_task=none __drover_args= __drover_words=
  for ((i = 1; i < n; i++)); do
    w=\${words[i]}
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
      [[ $w == --state-dir || ( -n $cmd && $__drover_vflags == *"|$w|"* ) ]] && expect=$w
    elif [[ -z $cmd ]]; then
      cmd=$w
      __drover_spec "$cmd"
    else
      ((pos == 0)) && first=$w
      ((pos++))
    fi
  done
  # A state dir as typed: quotes and a leading ~/ undone, nothing else expanded.
  __drover_state=\${__drover_state#[\\"\\']}
  __drover_state=\${__drover_state%[\\"\\']}
  [[ $__drover_state == '~/'* ]] && __drover_state=$HOME/\${__drover_state:2}

  if [[ -n $dash ]]; then
    return 0 # the task's own command line, or diff's paths: files
  elif [[ -n $expect ]]; then
    if [[ $__drover_tflags == *"|$expect|"* ]]; then
      __drover_tasks "$cur"
    else
      __drover_values "$cmd" "$expect"
      __drover_offer "$__drover_words" "$cur"
    fi
  elif [[ $cur == -*=* ]]; then
    return 0 # --flag=value: files
  elif [[ $cur == -* ]]; then
    if [[ -z $cmd ]]; then __drover_offer "$__drover_globals" "$cur"; else __drover_offer "$__drover_flags" "$cur"; fi
  elif [[ -z $cmd || $cmd == help ]]; then
    __drover_offer "$__drover_commands" "$cur"
  elif [[ $__drover_task == all || ( $__drover_task == first && $pos == 0 ) || ( $__drover_task == move && $pos == 1 && $first == move ) ]]; then
    __drover_tasks "$cur"
  elif ((pos == 0)) && [[ -n $__drover_args ]]; then
    __drover_offer "$__drover_args" "$cur"
  fi
  # bash replaces only its own last word (after a ':' or '='): drop what precedes it.
  local cut=$((\${#cur} - \${#COMP_WORDS[COMP_CWORD]}))
  if ((cut > 0)); then
    for i in "\${!COMPREPLY[@]}"; do COMPREPLY[i]=\${COMPREPLY[i]:cut}; done
  fi
  return 0
}

complete -o default -F _${bin} ${bin}
`
}
