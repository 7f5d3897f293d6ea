// The real --help texts of the pinned agent versions (fixtures), as grammars.

import {readFileSync} from 'node:fs'
import {FlagTable, parseHelpFlags} from '../../src/agents/flags.js'
import {fixture} from './cli.js'

export const claudeHelp = () => readFileSync(fixture('help/claude-2.1.332.txt'), 'utf8')
export const codexHelp = () => readFileSync(fixture('help/codex-exec-0.171.0.txt'), 'utf8')
export const claudeFlags = () => new FlagTable(parseHelpFlags(claudeHelp()))
export const codexFlags = () => new FlagTable(parseHelpFlags(codexHelp()))
