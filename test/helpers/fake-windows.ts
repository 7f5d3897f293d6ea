// A win32 PlatformContext for tests on any OS: every external program drover
// starts (PowerShell, taskkill) is recorded and answered by `answer`, while
// whether a pid exists is asked of the real OS, for real processes of the test.

import type {PlatformContext} from '../../src/platform/platform.js'

/** Whether a real process with this pid exists (EPERM: it does, someone else's). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** The context, and each program start as `file lastArgument`. */
export function fakeWindows(answer: () => string = () => ''): {ctx: PlatformContext; calls: string[]} {
  const calls: string[] = []
  const ctx: PlatformContext = {
    os: 'win32',
    exists: pidExists,
    run: (file, args) => {
      calls.push(`${file} ${args.at(-1)}`)
      return answer()
    },
  }
  return {ctx, calls}
}
