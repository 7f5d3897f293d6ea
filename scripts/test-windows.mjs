#!/usr/bin/env node
// Runs drover's tests on Windows, for real, on Linux: vitest itself under the
// Windows build of Node in Wine (scripts/install-windows.mjs prepares it, and
// is run first). Two projects: the unit suite (POSIX-only checks skip
// themselves by test/helpers/platform.ts's named guard) and the end-to-end
// Windows suite (test/windows). Each run gets private copies of the prefix: a
// host where vitest runs, and a guest "machine" the reboot test starts tasks
// in and then kills whole with `wineserver -k`. Both are killed and removed
// at the end, whatever happened, so nothing is left running.
//
//   node scripts/test-windows.mjs                   both projects
//   node scripts/test-windows.mjs --project windows [FILE…]   one project, vitest's arguments after it
//
// Needs `npm run build` first (npm test does it). Elsewhere than Linux it says
// it does not run (on Windows, run the projects directly with vitest).

import {mkdirSync, rmSync} from 'node:fs'
import path from 'node:path'

import {ROOT, WINE64, installWindows, missingDebianPackages, winPath} from './install-windows.mjs'
import {nodeExe, privatePrefix, runNodeExe, writeHostBridge} from './windows/wine.mjs'

if (process.platform !== 'linux') {
  console.log('test-windows: runs under Wine on Linux only; on Windows run `npx vitest run --project unit --project windows`')
  process.exit(0)
}

if (missingDebianPackages() && process.getuid?.() !== 0) {
  console.log('test-windows: no Wine or mingw-w64 here (as root: node scripts/install-windows.mjs installs them); the Windows suite is not run')
  process.exit(0)
}

const args = process.argv.slice(2)
let projects = ['unit', 'windows']
let vitestArgs = []
if (args[0] === '--project') {
  projects = [args[1]]
  vitestArgs = args.slice(2)
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(0)} s`
const began = Date.now()
const {dir} = installWindows()
const host = privatePrefix(dir)
const guest = projects.includes('windows') ? privatePrefix(dir) : null
const cleanUp = () => {
  host.dispose()
  guest?.dispose()
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanUp()
    process.exit(130)
  })
}

let failed = false
try {
  const outDir = path.join(host.home, 'out')
  mkdirSync(outDir)
  const env = {
    ...host.env,
    // test/helpers/skips.ts: what Wine lacks and real Windows has is skipped by name.
    DROVER_TEST_UNDER_WINE: '1',
    // What test/windows needs to start drover on the guest "machine" and reboot it.
    DROVER_TEST_WINE_HOST_RUN: winPath(writeHostBridge(host.home)),
    DROVER_TEST_WINE64: WINE64,
    DROVER_TEST_WINE_NODE: nodeExe(dir),
    DROVER_TEST_WINE_GUEST_PREFIX: guest?.prefix ?? '',
    // The Linux side's temp dir: on Z:, readable from both the host and the guest prefix.
    DROVER_TEST_WINE_SHARED_TMP: winPath(host.home),
  }
  console.log(`test-windows: Wine and node.exe ready in ${seconds(began)}`)
  for (const project of projects) {
    const start = Date.now()
    console.log(`test-windows: vitest --project ${project} under node.exe in Wine …`)
    const status = await runNodeExe([path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', project, ...vitestArgs], {env, cwd: ROOT, outDir, dir})
    console.log(`test-windows: --project ${project} ${status === 0 ? 'passed' : `FAILED (exit ${status})`} in ${seconds(start)}`)
    if (status !== 0) failed = true
  }
} finally {
  cleanUp()
}
console.log(`test-windows: ${failed ? 'FAILED' : 'passed'}, ${seconds(began)} in all`)
process.exit(failed ? 1 : 0)
