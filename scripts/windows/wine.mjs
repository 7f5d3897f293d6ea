// Running Windows programs under the Wine set-up scripts/install-windows.mjs
// prepares: a private copy of the prefix per run (its own wineserver, so runs
// never see or kill each other's processes, and one `wineserver -k` leaves
// nothing behind), and node.exe with its output through files.
//
// node.exe must never write to a pipe read by a Linux program: Wine hands it
// the pipe as a handle Node cannot use, and it dies with EBADF. So its stdout
// and stderr go to files, which are copied to ours as they grow.

import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, closeSync, copyFileSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {WINE64, nodeDir, prefixDir, windowsDir, wineEnv} from '../install-windows.mjs'

export const nodeExe = (dir = windowsDir()) => path.join(nodeDir(dir), 'node.exe')

/**
 * A private copy of the prepared prefix under a new temp dir, with env to run
 * in it. Its files are hard links to the cached prefix's (a copy of its ~700
 * MB would take seconds): Wine only ever replaces files there -- the registry
 * is saved to a temp file and renamed -- and never writes into one in place;
 * the registry files are copied all the same. `dispose()` kills its
 * wineserver and every process in it, then removes it.
 */
export function privatePrefix(dir = windowsDir(), tmpRoot = os.tmpdir()) {
  const home = mkdtempSync(path.join(tmpRoot, 'drover-wine-'))
  const prefix = path.join(home, 'prefix')
  let copy = spawnSync('cp', ['-al', prefixDir(dir), prefix], {stdio: 'ignore'})
  if (copy.status !== 0) {
    // Another file system than the cache's: no hard links there, a real copy.
    rmSync(prefix, {recursive: true, force: true})
    copy = spawnSync('cp', ['-a', prefixDir(dir), prefix], {stdio: 'inherit'})
  }
  if (copy.status !== 0) throw new Error(`copying the Wine prefix failed (exit ${copy.status})`)
  for (const name of readdirSync(prefix).filter((entry) => entry.endsWith('.reg'))) {
    rmSync(path.join(prefix, name))
    copyFileSync(path.join(prefixDir(dir), name), path.join(prefix, name))
  }
  const env = {...wineEnv(dir), WINEPREFIX: prefix}
  return {
    home,
    prefix,
    env,
    dispose() {
      spawnSync('wineserver', ['-k'], {env, stdio: 'ignore'})
      spawnSync('wineserver', ['-w'], {env, stdio: 'ignore', timeout: 30_000})
      rmSync(home, {recursive: true, force: true})
    },
  }
}

/**
 * A shell script Windows programs in the prefix can start to run a Linux
 * command (Wine starts a non-PE file as a Linux program). Node cannot wait for
 * such a child (no Windows process handle: spawn it detached), so the script
 * records the exit status in a file: `host-run.exe DONE_FILE CMD ARGS…` runs
 * CMD with output to DONE_FILE.log and then writes its exit status to
 * DONE_FILE. The name ends in .exe so that Windows' search for a program finds it.
 */
export function writeHostBridge(folder) {
  const bridge = path.join(folder, 'host-run.exe')
  writeFileSync(
    bridge,
    [
      '#!/bin/sh',
      '# Started by a Windows program under Wine: the Windows PATH means nothing here.',
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      'done_file=$1; shift',
      '"$@" >"$done_file.log" 2>&1 </dev/null',
      'echo $? >"$done_file.tmp" && mv "$done_file.tmp" "$done_file"',
      '',
    ].join('\n'),
  )
  chmodSync(bridge, 0o755)
  return bridge
}

/** Copies what is appended to a file to a stream, from where it was last read. */
function follower(file, stream) {
  let offset = 0
  const buffer = Buffer.alloc(1 << 16)
  return () => {
    let fd
    try {
      fd = openSync(file, 'r')
    } catch {
      return
    }
    try {
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, offset)
        if (n <= 0) break
        offset += n
        stream.write(Buffer.from(buffer.subarray(0, n)))
      }
    } finally {
      closeSync(fd)
    }
  }
}

/**
 * Runs `node.exe ARGS…` in the prefix of env; its stdout and stderr go to
 * files in outDir and are copied to ours while it runs. Resolves to its exit
 * status.
 */
export function runNodeExe(args, {env, cwd = process.cwd(), outDir, dir = windowsDir(), stdout = process.stdout, stderr = process.stderr}) {
  const out = path.join(outDir, `node-${process.pid}-${Date.now()}.out`)
  const err = `${out.slice(0, -4)}.err`
  const fdOut = openSync(out, 'w')
  const fdErr = openSync(err, 'w')
  const child = spawn(WINE64, [nodeExe(dir), ...args], {env, cwd, stdio: ['ignore', fdOut, fdErr]})
  closeSync(fdOut)
  closeSync(fdErr)
  const copyOut = follower(out, stdout)
  const copyErr = follower(err, stderr)
  const timer = setInterval(() => {
    copyOut()
    copyErr()
  }, 250)
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearInterval(timer)
      copyOut()
      copyErr()
      rmSync(out, {force: true})
      rmSync(err, {force: true})
      resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1))
    })
  })
}
