// The fish completion script: fish's own `complete` entries for commands and
// flags (with their descriptions), and one function that reads the line the
// way bash.ts does to know where a TASK goes. fish reads `ref<TAB>description`
// lines natively, so task-refs' output is used as it is.

import type {CommandSpec, FlagSpec} from './spec.js'
import {GLOBAL_SWITCHES, GLOBAL_WITH_VALUE} from './spec.js'

/** A fish single-quoted string. */
const q = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`

function flagLine(bin: string, c: CommandSpec, f: FlagSpec): string {
  const names = f.long.map((l) => `-l ${l.slice(2)}`)
  if (f.short) names.push(`-s ${f.short.slice(1)}`)
  let value = ''
  if (f.task) value = ` -x -a '(__drover_tasks)'`
  else if (f.options.length > 0) value = ` -x -a ${q(f.options.join(' '))}`
  else if (f.takesValue) value = ' -rF'
  return `complete -c ${bin} -n ${q(`__drover_using ${c.id}`)} ${names.join(' ')}${value} -d ${q(f.description)}`
}

export function fishScript(specs: readonly CommandSpec[], bin: string): string {
  const vflags = specs
    .map((c) => {
      const valued = c.flags.filter((f) => f.takesValue).flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])])
      return `        case ${c.id}\n            set -g __drover_vflags ${valued.join(' ')}\n            set -g __drover_task ${c.task}\n            set -g __drover_args ${c.firstArgOptions.join(' ')}`
    })
    .join('\n')
  const globals = [...GLOBAL_SWITCHES.map((s) => `-l ${s.slice(2)}`), ...GLOBAL_WITH_VALUE.map((s) => `-l ${s.slice(2)} -rF`)]
  return `# ${bin} completion for fish: commands, flags, and TASK arguments (ids, names,
# :latest). Save it where fish finds it:
#   ${bin} completion fish > ~/.config/fish/completions/${bin}.fish

complete -c ${bin} -e
complete -c ${bin} -f

# Reads the line up to the cursor: the command word (global flags may come
# first), the state dir, how many arguments, whether a flag waits for its value.
function __drover_ctx
    set -g __drover_cmd ''
    set -g __drover_pos 0
    set -g __drover_first ''
    set -g __drover_dash 0
    set -g __drover_state ''
    set -g __drover_expect ''
    set -g __drover_vflags
    set -g __drover_task none
    set -g __drover_args
    for w in (commandline -opc)[2..-1]
        if test -n "$__drover_expect"
            test "$__drover_expect" = --state-dir; and set -g __drover_state $w
            set -g __drover_expect ''
        else if test $__drover_dash = 1
            continue
        else if test -n "$__drover_cmd"; and test "$w" = --
            set -g __drover_dash 1
        else if string match -q -- '--state-dir=*' $w
            set -g __drover_state (string replace -- '--state-dir=' '' $w)
        else if string match -q -- '-*' $w
            if test "$w" = --state-dir; or begin; test -n "$__drover_cmd"; and contains -- $w $__drover_vflags; end
                set -g __drover_expect $w
            end
        else if test -z "$__drover_cmd"
            set -g __drover_cmd $w
            __drover_spec $w
        else
            test $__drover_pos = 0; and set -g __drover_first $w
            set -g __drover_pos (math $__drover_pos + 1)
        end
    end
    string match -q -- '~/*' $__drover_state; and set -g __drover_state $HOME/(string sub -s 3 -- $__drover_state)
    return 0
end

function __drover_spec
    switch $argv[1]
${vflags}
    end
end

function __drover_no_command
    __drover_ctx
    test -z "$__drover_cmd"; and test -z "$__drover_expect"
end

function __drover_using
    __drover_ctx
    test "$__drover_cmd" = $argv[1]; and test $__drover_dash = 0
end

function __drover_task_wanted
    __drover_ctx
    test -n "$__drover_cmd"; and test $__drover_dash = 0; and test -z "$__drover_expect"; or return 1
    switch $__drover_task
        case all
            return 0
        case first
            test $__drover_pos = 0
        case move
            test $__drover_pos = 1; and test "$__drover_first" = move
        case '*'
            return 1
    end
end

function __drover_first_arg
    __drover_ctx
    test -n "$__drover_cmd"; and test $__drover_dash = 0; and test -z "$__drover_expect"; and test $__drover_pos = 0
end

function __drover_tasks
    __drover_ctx
    set -l ask (commandline -opc)[1] task-refs
    string match -q -- '~/*' $ask[1]; and set ask[1] $HOME/(string sub -s 3 -- $ask[1])
    test -n "$__drover_state"; and set -a ask --state-dir $__drover_state
    $ask -- (commandline -ct) 2>/dev/null
end

${globals.map((g) => `complete -c ${bin} -n __drover_no_command ${g}`).join('\n')}
${specs.map((c) => `complete -c ${bin} -n __drover_no_command -a ${c.id} -d ${q(c.summary)}`).join('\n')}
complete -c ${bin} -n '__drover_using help' -a ${q(specs.map((c) => c.id).join(' '))}
complete -c ${bin} -n __drover_task_wanted -a '(__drover_tasks)'
${specs
  .filter((c) => c.firstArgOptions.length > 0)
  .map((c) => `complete -c ${bin} -n ${q(`__drover_using ${c.id}; and __drover_first_arg`)} -a ${q(c.firstArgOptions.join(' '))}`)
  .join('\n')}
${specs.flatMap((c) => c.flags.map((f) => flagLine(bin, c, f))).join('\n')}
complete -c ${bin} -n '__drover_ctx; test $__drover_dash = 1' -F
`
}
