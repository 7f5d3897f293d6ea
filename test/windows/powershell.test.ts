// What drover reads from PowerShell's CIM queries on Windows. Under Wine this
// checks the stand-in (scripts/windows/powershell.c) answers as PowerShell
// does; on a real Windows machine the same file checks real PowerShell, so the
// two cannot drift apart unseen.

import {spawn, spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'

import {listDescendants, processStartTime} from '../../src/platform/platform.js'
import {waitFor} from '../helpers/cli.js'

const powershell = (script: string) => spawnSync('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', script], {encoding: 'utf8', windowsHide: true})

describe('Win32_Process through powershell.exe', () => {
  it('a start time: a FILETIME of CIM precision (microseconds), the same each time; none for a pid that does not exist', () => {
    const script = `(Get-CimInstance Win32_Process -Filter 'ProcessId=${process.pid}' -ErrorAction Stop).CreationDate.ToFileTimeUtc()`
    const first = powershell(script)
    expect(first.status, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/^\d+\r\n$/)
    const filetime = BigInt(first.stdout.trim())
    expect(filetime % 10n).toBe(0n)
    // Started in the last day, as FILETIME counts: 100 ns units since 1601.
    const now = BigInt(Date.now()) * 10_000n + 116_444_736_000_000_000n
    expect(filetime).toBeLessThanOrEqual(now)
    expect(now - filetime).toBeLessThan(864_000_000_000n)
    expect(powershell(script).stdout).toBe(first.stdout)
    expect(processStartTime(process.pid)).toBe(first.stdout.trim())

    const none = powershell(`(Get-CimInstance Win32_Process -Filter 'ProcessId=4000000000' -ErrorAction Stop).CreationDate.ToFileTimeUtc()`)
    expect(none.status).not.toBe(0)
    expect(none.stdout).toBe('')
    expect(processStartTime(4_000_000_000)).toBeNull()
  })

  it('the process list: one "pid ppid start" line per process, children found by ParentProcessId', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {stdio: 'ignore', windowsHide: true})
    try {
      await waitFor(() => processStartTime(child.pid!) !== null, {timeout: 20_000, message: 'the child to be listed'})
      const all = powershell("Get-CimInstance Win32_Process | ForEach-Object { if ($_.CreationDate) { '{0} {1} {2}' -f $_.ProcessId, $_.ParentProcessId, $_.CreationDate.ToFileTimeUtc() } }")
      expect(all.status, all.stderr).toBe(0)
      const rows = all.stdout.split('\r\n').filter(Boolean)
      for (const row of rows) expect(row).toMatch(/^\d+ \d+ \d+$/)
      expect(rows).toContain(`${child.pid} ${process.pid} ${processStartTime(child.pid!)}`)
      expect(listDescendants(process.pid)).toContainEqual({pid: child.pid, startTime: processStartTime(child.pid!)})

      const filtered = powershell(`Get-CimInstance Win32_Process -Filter 'ParentProcessId=${process.pid}' | ForEach-Object { '{0}' -f $_.ProcessId }`)
      expect(filtered.stdout.split('\r\n').filter(Boolean)).toContain(String(child.pid))
    } finally {
      child.kill()
    }
  })
})
