'use strict'
// A git repository the engine cannot mine (here: no `docsuggest` binary to mine through) is
// not silent without a reason: every answer there carries it in `warnings`, and `stats` lists
// the repository under `unmined`. Its own file: it sets DOCSUGGEST_BIN for the process.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

process.env.DOCSUGGEST_BIN = '/nonexistent/docsuggest'
const { Engine } = require('..')

const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'docsuggest-unmined-'))
after(() => fs.rmSync(repo, { recursive: true, force: true }))

test('a repository that cannot be mined says why, in the answer and in stats', async () => {
  fs.mkdirSync(path.join(repo, 'src'))
  fs.writeFileSync(path.join(repo, 'src', 'a.py'), 'x\n')
  execFileSync('git', ['init', '--quiet', repo])
  const engine = await Engine.open({ memory: true, log: false })
  const call = { agent: 'a', tool: 'read', path: path.join(repo, 'src', 'a.py') }
  let verdict = engine.judge(call)
  for (let i = 0; i < 600 && verdict.ledger[0].includes('pack-mining'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    verdict = engine.judge(call)
  }
  assert.deepEqual(verdict.ledger, ['doc-suggester: abstained foreign-workspace 0.00'])
  assert.equal(verdict.warnings.length, 1, JSON.stringify(verdict))
  assert.match(verdict.warnings[0], /no pack could be mined from the history of .*\/nonexistent\/docsuggest/)
  const { unmined } = engine.stats()
  const roots = Object.keys(unmined)
  assert.equal(roots.length, 1, JSON.stringify(unmined))
  assert.equal(fs.realpathSync(roots[0]), fs.realpathSync(repo))
  assert.match(unmined[roots[0]], /DOCSUGGEST_BIN/)
})
