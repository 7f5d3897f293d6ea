// Dashboard bench worker: writes <KiB per second> of numbered ASCII lines for
// <seconds>, in 16 even slices a second, then exits. With <go file>, it
// first waits (silent) until that file exists, so many writers start as one.
// usage: node paced-writer.mjs <seconds> <KiB per second> [<go file>]

import {existsSync, writeSync} from 'node:fs'

const seconds = Number(process.argv[2])
const perSlice = (Number(process.argv[3]) * 1024) / 16
const goFile = process.argv[4]
let seq = 0
let slices = 0

function slice() {
  let text = ''
  while (text.length < perSlice) text += `line ${String(++seq).padStart(9, '0')} ${'x'.repeat(48)}\n`
  writeSync(1, text.slice(0, perSlice - 1) + '\n')
  if (++slices < seconds * 16) setTimeout(slice, 1000 / 16)
}

function waitToGo() {
  if (existsSync(goFile)) slice()
  else setTimeout(waitToGo, 10)
}

if (goFile) waitToGo()
else slice()
