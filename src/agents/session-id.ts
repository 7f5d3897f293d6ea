// A new session id for an agent drover gives one at launch (copilot): a
// random UUID v4. Not from node:crypto, which would cost every live runner
// about 2 MB: the kernel's random bytes where there are any, else
// Math.random — an id needs to be unique, not secret.

import {closeSync, openSync, readSync} from 'node:fs'

function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n)
  try {
    const fd = openSync('/dev/urandom', 'r')
    try {
      if (readSync(fd, bytes, 0, n, null) === n) return bytes
    } finally {
      closeSync(fd)
    }
  } catch {
    // no /dev/urandom (Windows)
  }
  for (let i = 0; i < n; i++) bytes[i] = Math.floor(Math.random() * 256)
  return bytes
}

export function newSessionId(): string {
  const b = randomBytes(16)
  b[6] = (b[6] & 0x0f) | 0x40 // version 4
  b[8] = (b[8] & 0x3f) | 0x80 // RFC 4122 variant
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
