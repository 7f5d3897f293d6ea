// The PowerShell completion script (Windows PowerShell 5.1 and PowerShell 7):
// a native argument completer that reads the line the way bash.ts does, from
// the parsed command elements, and offers commands, flags and — from
// `drover task-refs` — tasks, each with its description as the tooltip.

import type {CommandSpec} from './spec.js'
import {GLOBAL_SWITCHES, GLOBAL_WITH_VALUE} from './spec.js'

/** A PowerShell single-quoted string: a quote is doubled (and so are the typographic ones PowerShell also takes for quotes). */
const q = (text: string) => `'${text.replace(/['\u2018\u2019\u201a\u201b]/g, (m) => m + m)}'`
const list = (words: readonly string[]) => `@(${words.map(q).join(', ')})`

function specEntry(c: CommandSpec): string {
  const flags = c.flags.flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])].map((w) => `@(${q(w)}, ${q(f.description || w)})`))
  const valued = c.flags.filter((f) => f.takesValue).flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])])
  const task = c.flags.filter((f) => f.task).flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])])
  const options = c.flags
    .filter((f) => f.options.length > 0)
    .flatMap((f) => [...f.long, ...(f.short ? [f.short] : [])].map((w) => `${q(w)} = ${list(f.options)}`))
  return `    ${q(c.id)} = @{
      Summary = ${q(c.summary || c.id)}
      Flags = @(${flags.length === 1 ? ', ' : ''}${flags.join(', ')})
      Valued = ${list(valued)}
      TaskFlags = ${list(task)}
      Options = @{${options.join('; ')}}
      Task = ${q(c.task)}
      Args = ${list(c.firstArgOptions)}
    }`
}

export function powershellScript(specs: readonly CommandSpec[], bin: string): string {
  return `# ${bin} completion for PowerShell: commands, flags, and TASK arguments (ids,
# names, :latest). Load it from your profile ($PROFILE):
#   ${bin} completion powershell | Out-String | Invoke-Expression

Register-ArgumentCompleter -Native -CommandName ${q(bin)} -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  # Inside the completer, so nothing depends on the scope the script was loaded in.
  $spec = @{
${specs.map(specEntry).join('\n')}
  }
  $globals = ${list([...GLOBAL_SWITCHES, ...GLOBAL_WITH_VALUE])}
  # The words before the one being completed, unquoted as the program will get them.
  $elements = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition })
  $words = @($elements | ForEach-Object {
    if ($_ -is [System.Management.Automation.Language.StringConstantExpressionAst]) { $_.Value } else { $_.Extent.Text }
  })
  $cmd = $null; $expect = $null; $dash = $false; $pos = 0; $first = $null; $stateDir = $null; $entry = $null
  for ($i = 1; $i -lt $words.Count; $i++) {
    $w = [string]$words[$i]
    if ($null -ne $expect) {
      if ($expect -eq '--state-dir') { $stateDir = $w }
      $expect = $null
    } elseif ($dash) {
    } elseif ($null -ne $cmd -and $w -eq '--') {
      $dash = $true
    } elseif ($w.StartsWith('--state-dir=')) {
      $stateDir = $w.Substring(12)
    } elseif ($w.StartsWith('-')) {
      if ($w -eq '--state-dir' -or ($null -ne $entry -and $entry.Valued -ccontains $w)) { $expect = $w }
    } elseif ($null -eq $cmd) {
      $cmd = $w
      $entry = $spec[$cmd]
    } else {
      if ($pos -eq 0) { $first = $w }
      $pos++
    }
  }

  $offer = {
    param($items)
    foreach ($item in $items) {
      $text = [string]$item[0]
      if ($text.StartsWith($wordToComplete, [System.StringComparison]::OrdinalIgnoreCase)) {
        $tip = if ([string]::IsNullOrEmpty($item[1])) { $text } else { [string]$item[1] }
        [System.Management.Automation.CompletionResult]::new($text, $text, $item[2], $tip)
      }
    }
  }
  $tasks = {
    $exe = $commandAst.CommandElements[0].Extent.Text
    $ask = @('task-refs')
    if ($null -ne $stateDir) { $ask += @('--state-dir', $stateDir) }
    # no '--': some PowerShell versions drop it on its way to a native program
    if ($wordToComplete -ne '' -and -not $wordToComplete.StartsWith('-')) { $ask += @($wordToComplete) }
    $lines = @(& $exe @ask 2>$null)
    & $offer @($lines | Where-Object { $_ -match "\\t" } | ForEach-Object {
      $parts = $_ -split "\`t", 2
      , @($parts[0], $parts[1], 'ParameterValue')
    })
  }

  if ($dash) { return }
  if ($null -ne $expect) {
    if ($null -ne $entry -and $entry.TaskFlags -ccontains $expect) { & $tasks; return }
    if ($null -ne $entry -and $entry.Options.ContainsKey($expect)) {
      & $offer @($entry.Options[$expect] | ForEach-Object { , @($_, $_, 'ParameterValue') })
    }
    return
  }
  if ($wordToComplete.StartsWith('-')) {
    if ($null -eq $entry) { & $offer @($globals | ForEach-Object { , @($_, $_, 'ParameterName') }) }
    else { & $offer @($entry.Flags | ForEach-Object { , @($_[0], $_[1], 'ParameterName') }) }
    return
  }
  if ($null -eq $cmd -or $cmd -eq 'help') {
    & $offer @($spec.Keys | Sort-Object | ForEach-Object { , @($_, $spec[$_].Summary, 'Command') })
    return
  }
  if ($null -eq $entry) { return }
  if ($entry.Task -eq 'all' -or ($entry.Task -eq 'first' -and $pos -eq 0) -or ($entry.Task -eq 'move' -and $pos -eq 1 -and $first -eq 'move')) {
    & $tasks
  } elseif ($pos -eq 0 -and $entry.Args.Count -gt 0) {
    & $offer @($entry.Args | ForEach-Object { , @($_, $_, 'ParameterValue') })
  }
}
`
}
