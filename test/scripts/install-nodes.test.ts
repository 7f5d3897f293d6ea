// scripts/install-nodes.mjs: the Node of each tested major line, from a
// cache dir once installed there, the running Node when it is that version.
// (Installing from the registry itself is what CI and the bench do.)

import {chmodSync, mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {installNode, NODE_VERSIONS, nodeBinaryIn} from '../../scripts/install-nodes.mjs'
import {cleanupStateDirs, makeTempDir} from '../helpers/cli.js'

afterAll(() => cleanupStateDirs())

describe('install-nodes', () => {
  it('pins one version of each line CI runs', () => {
    expect(Object.keys(NODE_VERSIONS)).toEqual(['20', '22', '24'])
    for (const [major, version] of Object.entries(NODE_VERSIONS)) expect(version.startsWith(`${major}.`)).toBe(true)
  })

  it('refuses a line it has no pinned version of', () => {
    expect(() => installNode(19, {dir: makeTempDir('drover-nodes-')})).toThrow(/no pinned Node 19/)
  })

  it.skipIf(process.platform === 'win32')('uses what is in the cache dir, and checks that it is that version', () => {
    const dir = makeTempDir('drover-nodes-')
    const major = Object.keys(NODE_VERSIONS).find((m) => process.version !== `v${NODE_VERSIONS[m as keyof typeof NODE_VERSIONS]}`)!
    const version = NODE_VERSIONS[major as keyof typeof NODE_VERSIONS]
    const binary = nodeBinaryIn(version, dir)
    mkdirSync(path.dirname(binary), {recursive: true})
    writeFileSync(binary, `#!/bin/sh\necho v${version}\n`)
    chmodSync(binary, 0o755)
    expect(installNode(major, {dir, log: () => {}})).toBe(binary)
    writeFileSync(binary, '#!/bin/sh\necho v0.0.1\n')
    expect(() => installNode(major, {dir, log: () => {}})).toThrow(/says v0.0.1/)
  })

  const own = Object.entries(NODE_VERSIONS).find(([, version]) => process.version === `v${version}`)
  it.skipIf(own === undefined)('serves the running Node for its own pinned version', () => {
    expect(installNode(own![0], {dir: makeTempDir('drover-nodes-'), log: () => {}})).toBe(process.execPath)
  })
})
