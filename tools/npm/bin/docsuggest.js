#!/usr/bin/env node
'use strict'
// The `docsuggest` command from npm: runs the binary of this platform's package (one optional
// dependency per platform holds it, as biome and esbuild ship theirs), with the arguments,
// stdio and exit status passed through. DOCSUGGEST_BINARY names another binary.
const { spawnSync } = require('node:child_process')
const { platformPackage, unsupported } = require('../lib/platform')

function binary () {
  if (process.env.DOCSUGGEST_BINARY) return process.env.DOCSUGGEST_BINARY
  const why = unsupported(process.platform)
  if (why) {
    console.error(`docsuggest: error: ${why}`)
    process.exit(1)
  }
  const name = platformPackage()
  try {
    return require.resolve(`${name}/bin/docsuggest`)
  } catch {
    console.error(`docsuggest: error: ${name}, the package holding the binary for this ` +
      `platform, is not installed (npm leaves optional dependencies out with --no-optional); ` +
      `install it with \`npm install ${name}\`, or the binary with \`cargo install docsuggest\``)
    process.exit(1)
  }
}

const run = spawnSync(binary(), process.argv.slice(2), { stdio: 'inherit' })
if (run.error) {
  console.error(`docsuggest: error: cannot run ${run.error.path || 'the binary'}: ${run.error.message}`)
  process.exit(1)
}
if (run.signal) process.kill(process.pid, run.signal)
process.exit(run.status ?? 1)
