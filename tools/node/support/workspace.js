'use strict'
// A real workspace in a temporary directory: the built-in pack's signature
// (Documentation/ARCHIVE-STYLE.md) and a plan whose companions exist.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const FILES = [
  'Documentation/ARCHIVE-STYLE.md',
  'Documentation/INDEX.md',
  'Documentation/Plans/X.md',
  'POC-BRIEF.md',
  'CHANGELOG.md',
]

/** Creates a temporary directory holding a workspace; answers its absolute path. */
function makeWorkspace () {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docsuggest-node-'))
  const ws = path.join(root, 'ws')
  for (const file of FILES) {
    const full = path.join(ws, file)
    fs.mkdirSync(path.dirname(full), { recursive: true })
    fs.writeFileSync(full, '')
  }
  return ws
}

/** Removes what makeWorkspace created (the workspace and its parent). */
function removeWorkspace (ws) {
  fs.rmSync(path.dirname(ws), { recursive: true, force: true })
}

module.exports = { FILES, makeWorkspace, removeWorkspace }
