'use strict'
// `npm run build` / `build:debug`: the module for this machine with cargo alone, on the
// workspace's target directory, so it reuses what `cargo build --release` (or the test build)
// already compiled. `napi build` passes `--target`, which moves cargo into
// target/<triple>/ and recompiles every dependency there; this does not. It copies the cdylib
// to `docsuggest.<platform>.node`, the name index.js loads first, and leaves index.js and
// index.d.ts as they are (`npm run build:napi` regenerates them).
//
//   node scripts/build.js [--release] [cargo args…]
const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const crate = 'docsuggest-node'
const binaryName = require('../package.json').napi.binaryName
// The `platformArchABI` napi gives this machine, as the npm packages name platforms.
const { platformArchAbi } = require('../../npm/lib/platform')

/** What cargo names the cdylib of `docsuggest_node` on this platform. */
function cdylib () {
  const stem = crate.replace(/-/g, '_')
  if (process.platform === 'win32') return `${stem}.dll`
  if (process.platform === 'darwin') return `lib${stem}.dylib`
  return `lib${stem}.so`
}

function main (args) {
  const release = args.includes('--release')
  const cargoArgs = args.filter((a) => a !== '--release')
  const cargo = process.env.CARGO || 'cargo'
  const build = spawnSync(cargo, ['build', '-p', crate, ...(release ? ['--release'] : []), ...cargoArgs], {
    cwd: root,
    stdio: 'inherit',
  })
  if (build.error) throw build.error
  if (build.status !== 0) process.exit(build.status ?? 1)
  // Where cargo put it: `cargo metadata` honours CARGO_TARGET_DIR and .cargo/config.toml.
  const metadata = JSON.parse(execFileSync(cargo, ['metadata', '--format-version', '1', '--no-deps'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  }))
  const from = path.join(metadata.target_directory, release ? 'release' : 'debug', cdylib())
  const to = path.join(root, `${binaryName}.${platformArchAbi()}.node`)
  // Copy, then rename over the old module: a process that has it loaded keeps its mapping.
  const staged = `${to}.${process.pid}.tmp`
  fs.copyFileSync(from, staged)
  fs.renameSync(staged, to)
  console.log(`${path.relative(root, to)} <- ${from}`)
}

main(process.argv.slice(2))
