#!/usr/bin/env node
// Writes man/drover.1 and one man/drover-<command>.1 per command from the
// commands' own metadata (summary, description, flags, examples), so the pages
// say what `--help` says. Usage: node scripts/man.mjs [--out DIR] [--manifest FILE]
//
// Without --manifest the metadata is built in memory from dist/ exactly as
// `oclif manifest` builds oclif.manifest.json, so the pages follow the compiled
// commands even when the manifest file is stale, and no shared file is rewritten.
// Only drover's own commands get a page; the help plugin's is
// described in drover(1).

import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {overviewPage, pageName} from './man-overview.mjs'
import {escapeText, expandTemplates, flagEntries, groupFlags, inline, nameLine, page, paragraphs, verbatim} from './man-roff.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const PAGE_FILE = /^drover(-[a-z0-9-]+)?\.1$/

async function loadManifest(manifestFile) {
  if (manifestFile) return JSON.parse(readFileSync(manifestFile, 'utf8'))
  const {Plugin} = await import('@oclif/core')
  const plugin = new Plugin({root: ROOT, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true})
  await plugin.load()
  return plugin.manifest
}

/** A word of a usage line as man pages set them: flags in bold, placeholders (TASK, ARG...) in italics. */
function usageWord(word) {
  return escapeText(word)
    .replace(/^([[(|]*)(\\-\\-?[a-z][\w\\-]*)/, '$1\\fB$2\\fR')
    .replace(/(^|[[(|])([A-Z][A-Z0-9_]*)(?![a-z])/, '$1\\fI$2\\fR')
}

function synopsis(command) {
  const words = command.id.split(/[: ]/).map(escapeText).join(' ')
  const usages = command.usage === undefined ? [] : [command.usage].flat()
  if (usages.length > 0) {
    const id = command.id.replaceAll(':', ' ')
    return usages
      .map((usage) => {
        let text = expandTemplates(usage, command.id).trim().replace(/^drover\s+/, '')
        if (text === id || text.startsWith(`${id} `)) text = text.slice(id.length).trim()
        return [`\\fBdrover ${words}\\fR`, ...text.split(/\s+/).filter(Boolean).map(usageWord)].join(' ')
      })
      .join('\n.br\n')
  }
  const args = Object.values(command.args ?? {})
    .filter((arg) => !arg.hidden)
    .map((arg) => {
      const name = `\\fI${escapeText(arg.name.toUpperCase())}\\fR${arg.multiple || command.strict === false ? '...' : ''}`
      return arg.required ? name : `[${name}]`
    })
  return [`\\fBdrover ${words}\\fR`, '[\\fIoptions\\fR]', ...args].join(' ')
}

function argumentsSection(command) {
  const args = Object.values(command.args ?? {}).filter((arg) => !arg.hidden && arg.description)
  if (args.length === 0) return ''
  const entries = args.map((arg) => {
    const notes = []
    if (arg.options) notes.push(`One of: ${arg.options.join(', ')}.`)
    if (arg.default !== undefined) notes.push(`Default: ${arg.default}.`)
    // the notes are sentences of their own: the description before them ends as one
    const described = expandTemplates(arg.description, command.id)
    const sentence = notes.length > 0 && !/[.!?]$/.test(described) ? `${described}.` : described
    return ['.TP', `\\fI${escapeText(arg.name.toUpperCase())}\\fR`, inline(sentence), ...(notes.length > 0 ? [inline(notes.join(' '))] : [])].join('\n')
  })
  return `.SH ARGUMENTS\n${entries.join('\n')}`
}

// A verbatim line sits 11 columns in on an 80-column terminal; longer drover
// command lines are split between words with a shell line continuation, as
// `--help` does, so they still paste as one command.
const EXAMPLE_WIDTH = 66

function wrapCommand(line) {
  if (line.length <= EXAMPLE_WIDTH || !line.startsWith('drover ')) return [line]
  const words = line.match(/(?:[^\s"']+|"(?:\\.|[^"\\])*"|'[^']*')+/g) ?? [line]
  const lines = []
  let current = ''
  for (const word of words) {
    const indent = lines.length > 0 ? '    ' : ''
    if (current && indent.length + current.length + 1 + word.length + 2 > EXAMPLE_WIDTH) {
      lines.push(`${indent}${current} \\`)
      current = word
    } else {
      current = current ? `${current} ${word}` : word
    }
  }
  lines.push(`${lines.length > 0 ? '    ' : ''}${current}`)
  return lines
}

function examplesSection(command) {
  const examples = [command.examples ?? []].flat()
  if (examples.length === 0) return ''
  const isCommand = (line) => /^\s*(\$\s+)?(<%=\s*config\.bin\s*%>|drover)\b/.test(line)
  const blocks = examples.map((example) => {
    let description = ''
    let commands
    if (typeof example === 'string') {
      const lines = example.split('\n').filter(Boolean)
      if (lines.length >= 2 && !isCommand(lines[0]) && lines.slice(1).every(isCommand)) [description, ...commands] = lines
      else commands = lines
    } else {
      description = example.description ?? ''
      commands = [example.command]
    }
    const shown = commands.flatMap((line) => wrapCommand(expandTemplates(line, command.id).replace(/^\s*\$\s+/, '')))
    return `${description ? `.PP\n${inline(expandTemplates(description, command.id))}\n` : ''}${verbatim(shown)}`
  })
  return `.SH EXAMPLES\n${blocks.join('\n')}`
}

function commandPage(command, version) {
  const name = pageName(command.id)
  const groups = groupFlags(command.flags)
  const flagSections = [...groups]
    .filter(([, flags]) => flags.length > 0)
    .map(([group, flags]) => `.SH ${group ? `${escapeText(group.toUpperCase())} OPTIONS` : 'OPTIONS'}\n${flagEntries(flags)}`)
  const description = [command.summary, command.description].filter(Boolean).map((text) => expandTemplates(text, command.id)).join('\n\n')
  const body = [
    `.SH NAME\n${name} \\- ${inline(nameLine(expandTemplates(command.summary ?? command.description?.split('\n')[0] ?? '', command.id)))}`,
    `.SH SYNOPSIS\n${synopsis(command)}`,
    description ? `.SH DESCRIPTION\n${paragraphs(description)}` : '',
    argumentsSection(command),
    ...flagSections,
    examplesSection(command),
    '.SH EXIT STATUS\nSee \\fBEXIT STATUS\\fR in \\fBdrover\\fR(1).',
    '.SH SEE ALSO\n.BR drover (1)',
  ]
    .filter(Boolean)
    .join('\n')
  return page(`drover-${command.id.replaceAll(':', '-')}`, version, body)
}

/** Flags every command shares in the same help group (drover's GLOBAL flags), for drover(1). */
function sharedGroupedFlags(commands) {
  if (commands.length === 0) return []
  const [first, ...rest] = commands
  return Object.entries(first.flags ?? {})
    .map(([name, flag]) => ({...flag, name}))
    .filter((flag) => flag.helpGroup && !flag.hidden && rest.every((command) => command.flags?.[flag.name]?.helpGroup === flag.helpGroup))
}

/** Every page as file name → roff text. */
export function renderPages(manifest, version) {
  const commands = Object.values(manifest.commands)
    .filter((command) => !command.hidden && command.pluginType === 'core')
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const pages = new Map([['drover.1', overviewPage({version, commands, globalFlags: sharedGroupedFlags(commands)})]])
  for (const command of commands) pages.set(`drover-${command.id.replaceAll(':', '-')}.1`, commandPage(command, version))
  return pages
}

/** Keeps package.json's "man" list equal to the pages, editing only that field's text. */
function syncPackageManList(files) {
  const file = path.join(ROOT, 'package.json')
  const text = readFileSync(file, 'utf8')
  const list = files.map((name) => `    "./man/${name}"`).join(',\n')
  const updated = text.replace(/"man": \[[^\]]*\]/, `"man": [\n${list}\n  ]`)
  if (updated !== text) {
    writeFileSync(file, updated)
    console.log('updated the "man" list in package.json')
  }
}

async function main(argv) {
  const option = (flag) => {
    const i = argv.indexOf(flag)
    return i === -1 ? undefined : argv[i + 1]
  }
  const outDir = path.resolve(option('--out') ?? path.join(ROOT, 'man'))
  const manifestFile = option('--manifest')
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  const pages = renderPages(await loadManifest(manifestFile), pkg.version)

  mkdirSync(outDir, {recursive: true})
  for (const stale of readdirSync(outDir).filter((name) => PAGE_FILE.test(name) && !pages.has(name))) {
    rmSync(path.join(outDir, stale))
    console.log(`removed ${stale}`)
  }
  for (const [name, text] of pages) {
    const file = path.join(outDir, name)
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue
    writeFileSync(file, text)
    console.log(`wrote ${path.relative(process.cwd(), file) || file}`)
  }
  const files = [...pages.keys()]
  if (outDir === path.join(ROOT, 'man')) syncPackageManList(files)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`man: ${error.stack ?? error}`)
    process.exitCode = 1
  })
}
