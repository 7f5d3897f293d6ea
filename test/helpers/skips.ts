// The named ways a test says where it cannot run, each with the reason: on
// the platforms it skips, the test's name then ends in what it needs; where
// it runs, nothing changes. No test skips a platform any other way.
//
// - posixOnly: needs a POSIX program (sh, sleep, true), a POSIX kernel
//   feature (SIGSTOP, process groups, file modes) or a privilege Windows does
//   not give by default (symlinks): skipped on Windows.
// - linuxOnly: needs what only Linux has (/proc, tmpfs): skipped elsewhere.
// - wineLacks: needs what real Windows has but Wine 8, where
//   scripts/test-windows.mjs runs the suites, does not (git for Windows,
//   junctions): skipped under Wine only.
// A defect of drover's on a platform is fixed, never skipped.

import {describe, it, type TestFunction} from 'vitest'

export const hasPosix = process.platform !== 'win32'
export const onLinux = process.platform === 'linux'
/** Set by scripts/test-windows.mjs, which runs the suites under the Windows build of Node in Wine. */
export const underWine = process.platform === 'win32' && process.env.DROVER_TEST_UNDER_WINE === '1'

function guard(runs: boolean, where: string, why: string) {
  if (!why.trim()) throw new Error('a skip must say why')
  const name = (title: string) => (runs ? title : `${title} [skipped on ${where}: ${why}]`)
  return {
    it: (title: string, fn?: TestFunction, timeout?: number) => it.skipIf(!runs)(name(title), fn, timeout),
    describe: (title: string, fn: () => void) => describe.skipIf(!runs)(name(title), fn),
  }
}

const here = process.platform === 'win32' ? 'Windows' : process.platform

/** it/describe for a test that needs `needs` from POSIX: skipped on Windows, saying so. */
export const posixOnly = (needs: string) => guard(hasPosix, 'Windows', `needs ${needs}`)

/** it/describe for a test that needs `needs` from Linux: skipped on macOS and Windows, saying so. */
export const linuxOnly = (needs: string) => guard(onLinux, here, `needs ${needs}`)

/** it/describe for a test that needs `lacks`, which Windows has and Wine does not: skipped under Wine only. */
export const wineLacks = (lacks: string) => guard(!underWine, 'Wine', `Wine has no ${lacks}`)
