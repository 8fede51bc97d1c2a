'use strict'
// `docsuggest serve` over a pipe: one request line out, one answer line back.
const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const readline = require('node:readline')

/**
 * The docsuggest binary: $DOCSUGGEST_BIN, else the newer of the release and debug builds
 * in the cargo target directory ($CARGO_TARGET_DIR or the workspace's target/).
 */
function serveBinary () {
  if (process.env.DOCSUGGEST_BIN) return process.env.DOCSUGGEST_BIN
  const target = process.env.CARGO_TARGET_DIR || path.join(__dirname, '..', '..', '..', 'target')
  const built = ['release', 'debug']
    .map((profile) => path.join(target, profile, 'docsuggest'))
    .filter((file) => fs.existsSync(file))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)
  if (built.length === 0) {
    throw new Error(`no docsuggest binary in ${target}: run \`cargo build --bin docsuggest\` or set DOCSUGGEST_BIN`)
  }
  return built[0]
}

/** A running `docsuggest serve`; `request` answers the parsed answer line. */
class Serve {
  constructor (args) {
    this.child = spawn(serveBinary(), ['serve', ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
    this.lines = readline.createInterface({ input: this.child.stdout })
    this.waiting = []
    this.lines.on('line', (line) => {
      const next = this.waiting.shift()
      if (next) next.resolve(JSON.parse(line))
    })
    this.child.on('exit', (code) => {
      for (const next of this.waiting.splice(0)) next.reject(new Error(`serve exited with ${code}`))
    })
    this.nextId = 1
  }

  /** Sends one request object (an `id` is added) and answers its answer. */
  request (fields) {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject })
      this.child.stdin.write(JSON.stringify({ id, ...fields }) + '\n')
    })
  }

  /** Closes stdin and waits for the server to exit. */
  end () {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve(this.child.exitCode)
      this.child.on('exit', resolve)
      this.child.stdin.end()
    })
  }
}

module.exports = { Serve, serveBinary }
