// A drover as a user installs it: the package packed as `npm pack` packs it,
// installed from the tarball with its runtime dependencies only into an
// empty project. Used by bench/install-size.mjs (what installing costs) and
// the nodes case (how an installed package starts on another Node).

import {execFileSync, spawnSync} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {restore, strip} from '../../scripts/pack-manifest.mjs'
import {ROOT} from './util.mjs'

/** npm's environment without the variables npm sets for a script it runs, preferring its cache to the registry. */
export const npmEnv = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
})

/**
 * Packs drover into `work` and installs the tarball into `work`/app.
 * `build`: as `npm pack` does, prepack building first; without it the build on
 * disk is packed as it is (with the published package.json, as prepack writes it).
 * Returns the tarball, the app folder, npm's install output and where drover's bin is.
 */
export function packAndInstall(work, {build = true} = {}) {
  const env = npmEnv()
  let packOut
  if (build) packOut = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']})
  else {
    strip(ROOT)
    try {
      packOut = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']})
    } finally {
      restore(ROOT)
    }
  }
  // the build in prepack prints to stdout too: npm's JSON is the array at the end
  const [packed] = JSON.parse(packOut.slice(packOut.search(/^\[/m)))
  const tarball = path.join(work, packed.filename)
  const app = path.join(work, 'app')
  mkdirSync(app)
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({name: 'app', version: '1.0.0', private: true}))
  const install = spawnSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', tarball], {cwd: app, env, encoding: 'utf8'})
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr}`)
  return {tarball, app, installOutput: `${install.stdout}${install.stderr}`.trim(), bin: path.join(app, 'node_modules', 'drover', 'bin', 'run.js')}
}
