#!/usr/bin/env node
// Runs the Windows build of Node under Wine with drover's test set-up:
// `node scripts/wine-node.mjs ARGS…` is `node.exe ARGS…` (e.g. `bin/run.js
// list`), its output copied to ours through files, its exit status ours.
// Installs what is missing first (scripts/install-windows.mjs). Uses
// $WINEPREFIX when set (e.g. from `eval "$(node scripts/install-windows.mjs
// --env)"` with another WINEPREFIX exported after), else the cached prefix,
// whose wineserver then keeps the tasks it started alive across calls.
// DROVER_TEST_POWERSHELL_LOG=FILE makes the stand-in powershell.exe log each
// of its starts there.

import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {installWindows, wineEnv} from './install-windows.mjs'
import {runNodeExe} from './windows/wine.mjs'

const {dir} = installWindows()
const env = wineEnv(dir)
if (process.env.WINEPREFIX) env.WINEPREFIX = process.env.WINEPREFIX
const outDir = mkdtempSync(path.join(os.tmpdir(), 'drover-wine-node-'))
// Interrupted: the output files go too (a Ctrl-C also reaches the wine process, in the same process group).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    rmSync(outDir, {recursive: true, force: true})
    process.exit(128 + os.constants.signals[signal])
  })
}
const status = await runNodeExe(process.argv.slice(2), {env, outDir, dir})
rmSync(outDir, {recursive: true, force: true})
process.exit(status)
