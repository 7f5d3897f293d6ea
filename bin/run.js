#!/usr/bin/env node
// `start` ends by waiting for a runner — a second Node process — to boot. Booting
// it now, while oclif loads, lets the two start-ups overlap (see
// dist/core/runner-process.js); anything else goes straight to oclif.
const [command, ...rest] = process.argv.slice(2)
if (command === 'start' && !rest.some((arg) => arg === '--help' || arg === '-h')) {
  try {
    const {prespawnRunner} = await import('../dist/core/runner-process.js')
    prespawnRunner()
  } catch {
    // not built yet, or no runner: start spawns one itself when it needs it
  }
}

const {execute} = await import('@oclif/core')
await execute({dir: import.meta.url})
