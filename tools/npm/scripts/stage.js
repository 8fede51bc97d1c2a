'use strict'
// Stages the platform packages: `npm/<platform>/package.json` for every platform the release
// builds (written from PLATFORMS, so they never drift from package.json's optional
// dependencies), and this machine's binaries copied into its package's `bin/`: `docsuggest`
// and, from beside it, the hooks' lean entry point `docsuggest-hook` (install-hooks writes the
// hooks to run it by its path there).
//
//   node scripts/stage.js [PATH/TO/docsuggest]   (default: the workspace's target/release)
const fs = require('node:fs')
const path = require('node:path')
const { platformArchAbi } = require('../lib/platform')

const root = path.join(__dirname, '..')
const main = require('../package.json')

/** Each platform package: its suffix, and npm's `os`, `cpu` and `libc` for it. */
const PLATFORMS = [
  { suffix: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc' },
  { suffix: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc' },
  { suffix: 'darwin-x64', os: 'darwin', cpu: 'x64' },
  { suffix: 'darwin-arm64', os: 'darwin', cpu: 'arm64' },
]

/** The package.json of one platform package. */
function manifest ({ suffix, os, cpu, libc }) {
  return {
    name: `@docsuggest/cli-${suffix}`,
    version: main.version,
    description: `The docsuggest binary for ${suffix}; install \`docsuggest\`, which runs it.`,
    license: main.license,
    files: executables().map((exe) => `bin/${exe}`),
    os: [os],
    cpu: [cpu],
    ...(libc ? { libc: [libc] } : {}),
    preferUnplugged: true,
  }
}

/** The executables a platform package holds: the command, then the hooks' entry point. */
function executables () {
  return ['docsuggest', 'docsuggest-hook']
}

function main_ (args) {
  for (const platform of PLATFORMS) {
    const dir = path.join(root, 'npm', platform.suffix)
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest(platform), null, 2) + '\n')
  }
  const here = PLATFORMS.find((p) => p.suffix === platformArchAbi())
  if (!here) throw new Error(`no platform package for ${platformArchAbi()}`)
  const [exe, hook] = executables()
  const from = args[0] || path.join(root, '..', '..', 'target', 'release', exe)
  for (const [source, name] of [[from, exe], [path.join(path.dirname(from), hook), hook]]) {
    const to = path.join(root, 'npm', here.suffix, 'bin', name)
    fs.mkdirSync(path.dirname(to), { recursive: true })
    fs.copyFileSync(source, to)
    fs.chmodSync(to, 0o755)
    console.log(`${path.relative(root, to)} <- ${source}`)
  }
}

module.exports = { PLATFORMS, manifest }
if (require.main === module) main_(process.argv.slice(2))
