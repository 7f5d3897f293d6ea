// A floor: oclif as drover loads it — its bundle (dist/cli-bundle/vendor, with
// the code cache) and Config.load of drover's package as bin/run.js hands it
// over (the package.json already read, no plugins) — and nothing else: no
// command, no state dir. What every drover command pays while it keeps oclif.
// Usage: node oclif-floor.mjs <drover root>

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

const root = process.argv[2]
globalThis.oclif = {enableAutoTranspile: false}
const {Config} = await import(pathToFileURL(path.join(root, 'dist', 'cli-bundle', 'vendor', 'config.js')).href)
const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
await Config.load({root, pjson: {...pjson, oclif: {...pjson.oclif, plugins: []}}})
