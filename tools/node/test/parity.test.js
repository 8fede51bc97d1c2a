'use strict'
// The addon answers what `docsuggest serve` answers, request for request: the same session
// runs through both, on memory stores, and every answer (or error) is compared.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { Engine } = require('..')
const { Serve } = require('../support/serve')
const { makeWorkspace, removeWorkspace } = require('../support/workspace')

const ws = makeWorkspace()
after(() => removeWorkspace(ws))

const judge = (agent, tool, file, cwd = ws) => ({ op: 'judge', agent, tool, path: file, cwd })

/** Each step: the request line `serve` gets, and the same request through the addon. */
const SESSION = [
  [judge('a', 'read', 'Documentation/Plans/X.md'), (e, r) => e.judge(call(r))],
  [judge('a', 'read', 'Documentation/INDEX.md'), (e, r) => e.judge(call(r))],
  [judge('b', 'read', 'Documentation/Plans/X.md'), (e, r) => e.judge(call(r))],
  [{ op: 'turn', agent: 'b' }, (e, r) => e.turn(r.agent)],
  [{ op: 'turn', agent: 'a' }, (e, r) => e.turn(r.agent)],
  [{ op: 'configure', config: { threshold: 0.5, learnWindow: 2 } }, (e, r) => e.configure(r.config)],
  [{ op: 'configure', config: { threshold: 2, weights: { scope: 'high' } } }, (e, r) => e.configure(r.config)],
  [judge('a', 'edit', path.join(ws, 'Documentation/Plans/X.md'), null), (e, r) => e.judge(call(r))],
  [judge('a', 'grep', 'src/lib.rs'), (e, r) => e.judge(call(r))],
  [judge('a', 'read', 'POC-BRIEF.md'), (e, r) => e.judge(call(r))],
  [judge('a', 'read', 'X.md', null), (e, r) => e.judge(call(r))],
  [judge('a', 'read', 'X.md', 'relative'), (e, r) => e.judge(call(r))],
  [judge('', 'read', 'X.md'), (e, r) => e.judge(call(r))],
  [{ op: 'judge', agent: 'a', tool: 'read', path: 7 }, (e, r) => e.judge(call(r))],
  [{ op: 'judge', agent: 'a', tool: 'read' }, (e, r) => e.judge(call(r))],
  [{ op: 'rates', workspace: ws }, (e, r) => e.rates(r.workspace)],
  [{ op: 'rates', workspace: '/' }, (e, r) => e.rates(r.workspace)],
  [{ op: 'stats' }, (e) => e.stats()],
  [{ op: 'flush' }, (e) => e.flush()],
  [{ op: 'close' }, (e) => e.close()],
]

/** The judge fields of a request, as a harness passes them to `judge`. */
function call (request) {
  const { op, ...fields } = request
  if (fields.cwd === null) delete fields.cwd
  return fields
}

/** The answer the addon gave, in the protocol's shape, or its error. */
async function addonAnswer (engine, request, run) {
  try {
    const value = await run(engine, request)
    return { ok: true, ...comparable(request.op, value) }
  } catch (e) {
    return { ok: false, error: { code: e.code, detail: e.message } }
  }
}

/** What is compared of a success answer: for judge the note and the ledger. */
function comparable (op, answer) {
  if (op === 'judge') return { note: answer.note, ledger: answer.ledger }
  if (op === 'close') return {}
  return answer
}

function serveAnswer (request, answer) {
  const { id, ok, ...body } = answer
  if (!ok) return { ok, error: body.error }
  if (request.op === 'close') return { ok }
  // The addon always answers `warnings` for turn and configure; `serve` only when some.
  if (request.op === 'turn' || request.op === 'configure') body.warnings = body.warnings || []
  return { ok, ...comparable(request.op, body) }
}

test('the addon answers the session exactly as serve does', async () => {
  const config = path.join(path.dirname(ws), 'quiet.json')
  fs.writeFileSync(config, JSON.stringify({ log: false }))
  const server = new Serve(['--memory', '--config', config])
  const engine = await Engine.open({ memory: true, log: false })
  try {
    const hello = await server.request({ op: 'stats' })
    assert.deepEqual(hello.startup, engine.ledger, 'the same startup ledger')
    let notes = 0
    let errors = 0
    for (const [request, run] of SESSION) {
      const expected = serveAnswer(request, await server.request(request))
      const got = await addonAnswer(engine, request, run)
      assert.deepEqual(got, expected, JSON.stringify(request))
      if (expected.note) notes++
      if (!expected.ok) errors++
    }
    // The session exercised what it is meant to: notes, accepts and errors.
    assert.ok(notes >= 2, `notes: ${notes}`)
    assert.ok(errors >= 6, `errors: ${errors}`)
  } finally {
    assert.equal(await server.end(), 0)
  }
})
