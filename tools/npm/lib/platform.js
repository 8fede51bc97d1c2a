'use strict'
// Which package holds the binary for this machine: `@docsuggest/cli-<platform>-<arch>[-abi]`,
// named as napi-rs names the addon's (`linux-x64-gnu`, `darwin-arm64`).

/** The systems docsuggest runs on: the hooks' daemon, the engine's paths and its file checks
 *  are Unix's. */
const SYSTEMS = ['linux', 'darwin']

/** Why `platform` (a `process.platform`) cannot run docsuggest, or null when it can. */
function unsupported (platform) {
  if (SYSTEMS.includes(platform)) return null
  const wsl = platform === 'win32' ? '; on Windows, install and run it inside WSL' : ''
  return `docsuggest runs on Linux and macOS, not ${platform}${wsl}`
}

/** This machine's `platform-arch[-abi]`. */
function platformArchAbi () {
  const { platform, arch } = process
  if (platform === 'linux') {
    const report = process.report && process.report.getReport()
    const glibc = report && report.header && report.header.glibcVersionRuntime
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  if (platform === 'darwin') return `darwin-${arch}`
  return `${platform}-${arch}`
}

/** The package holding this machine's binary. */
function platformPackage () {
  return `@docsuggest/cli-${platformArchAbi()}`
}

module.exports = { platformArchAbi, platformPackage, unsupported }
