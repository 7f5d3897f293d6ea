// The published package.json: no scripts (no `prepare` for npm to warn about
// or run on a user's machine), no devDependencies; the development one kept
// byte for byte and restored, also after a pack that died half way.

import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
// @ts-expect-error -- a plain .mjs script, no declarations
import {publishedManifest, restore, strip} from '../../scripts/pack-manifest.mjs'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

const DEV = `{
  "name": "x",
  "version": "1.0.0",
  "bin": {"x": "./bin/run.js"},
  "scripts": {"prepare": "npm run build", "prepack": "npm run build && node scripts/pack-manifest.mjs strip"},
  "dependencies": {"a": "1.0.0"},
  "devDependencies": {"b": "2.0.0"}
}
`

function project(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-manifest-'))
  dirs.push(dir)
  writeFileSync(path.join(dir, 'package.json'), DEV)
  return dir
}

const manifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))

describe('pack-manifest', () => {
  it('strip leaves what a user needs, restore brings the development manifest back byte for byte', () => {
    const dir = project()
    strip(dir)
    expect(manifest(dir)).toEqual({name: 'x', version: '1.0.0', bin: {x: './bin/run.js'}, dependencies: {a: '1.0.0'}})
    restore(dir)
    expect(readFileSync(path.join(dir, 'package.json'), 'utf8')).toBe(DEV)
    expect(existsSync(path.join(dir, 'package.json.dev'))).toBe(false)
  })

  it('a strip after a pack that died before postpack starts from the development manifest, not the stripped one', () => {
    const dir = project()
    strip(dir) // ... and the pack died here
    strip(dir)
    expect(manifest(dir).scripts).toBeUndefined()
    restore(dir)
    expect(readFileSync(path.join(dir, 'package.json'), 'utf8')).toBe(DEV)
  })

  it('restore without a strip changes nothing', () => {
    const dir = project()
    restore(dir)
    expect(readFileSync(path.join(dir, 'package.json'), 'utf8')).toBe(DEV)
    expect(publishedManifest({scripts: {}, devDependencies: {}, files: ['/dist']})).toEqual({files: ['/dist']})
  })
})
