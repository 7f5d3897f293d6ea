#!/usr/bin/env -S node --import tsx --no-warnings=ExperimentalWarning
import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Config, execute} from '@oclif/core'

// The built CLI runs its commands from the bundle (dist/cli-bundle, named in
// package.json and the manifest); from sources, oclif is pointed at tsc's
// layout (dist/cli) instead, which in development it maps to src/cli.
process.env.NODE_ENV = 'development'
const toSources = (file) => file.replace('/cli-bundle/core/', '/cli/').replace('/cli-bundle/', '/cli/')
const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const oclif = {
  ...pjson.oclif,
  commands: toSources(pjson.oclif.commands),
  helpClass: toSources(pjson.oclif.helpClass),
  hooks: Object.fromEntries(Object.entries(pjson.oclif.hooks).map(([hook, file]) => [hook, toSources(file)])),
}
const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '')
const config = await Config.load({root, pjson: {...pjson, oclif}})
for (const command of Object.values(config.rootPlugin.manifest?.commands ?? {})) {
  command.relativePath = command.relativePath?.map((part) => (part === 'cli-bundle' ? 'cli' : part))
}
await execute({development: true, loadOptions: config})
