'use strict'
// Which package holds the binary for this machine: `@docsuggest/cli-<platform>-<arch>[-abi]`,
// named as napi-rs names the addon's (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`).

/** This machine's `platform-arch[-abi]`. */
function platformArchAbi () {
  const { platform, arch } = process
  if (platform === 'linux') {
    const report = process.report && process.report.getReport()
    const glibc = report && report.header && report.header.glibcVersionRuntime
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  if (platform === 'darwin') return `darwin-${arch}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

/** The package holding this machine's binary. */
function platformPackage () {
  return `@docsuggest/cli-${platformArchAbi()}`
}

module.exports = { platformArchAbi, platformPackage }
