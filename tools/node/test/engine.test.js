'use strict'
// The addon against a real workspace: notes, follow-through learning, persistence across
// close and open, the memory fallback, and an Error with a code for every failure.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { Engine } = require('..')
const { makeWorkspace, removeWorkspace } = require('../support/workspace')

const ws = makeWorkspace()
const store = (name) => path.join(path.dirname(ws), name)
after(() => removeWorkspace(ws))

const plan = (agent = 'a') => ({ agent, tool: 'read', path: 'Documentation/Plans/X.md', cwd: ws })
const read = (file, agent = 'a') => ({ agent, tool: 'read', path: file, cwd: ws })

test('a plan read answers a note with its companions', async () => {
  const engine = await Engine.open({ memory: true, log: false })
  const verdict = engine.judge(plan())
  assert.equal(verdict.note.family, 'Plan')
  assert.deepEqual(verdict.note.companions, [
    'Documentation/INDEX.md',
    'Documentation/ARCHIVE-STYLE.md',
    'POC-BRIEF.md',
    'CHANGELOG.md',
  ])
  assert.match(verdict.note.text, /^\[doc-suggester\] Plan task \(kappa 0\.91\)/)
  assert.equal(verdict.note.summary.startsWith('Plan: Documentation/INDEX.md'), true)
  assert.equal(verdict.ledger[0], 'doc-suggester: suggest Plan 0.91 companions ' +
    'Documentation/INDEX.md,Documentation/ARCHIVE-STYLE.md,POC-BRIEF.md,CHANGELOG.md')
  const silent = engine.judge({ agent: 'a', tool: 'read', path: path.join(ws, 'README.md') })
  assert.equal(silent.note, null)
  await engine.close()
})

test('reading a named companion is an accept that moves the rate', async () => {
  const engine = await Engine.open({ memory: true, log: false })
  engine.judge(plan())
  const before = engine.rates(ws).rows
  const accepted = engine.judge(read('Documentation/INDEX.md'))
  assert.equal(accepted.ledger[0], 'doc-suggester: accepted Plan Documentation/INDEX.md')
  // The evidence model moves rates when the window closes: here, at the end of the turn.
  engine.turn('a')
  const rates = engine.rates(ws)
  assert.equal(rates.rateModel, 'evidence')
  const row = rates.rows.find((r) => r.family === 'Plan' && r.companion === 'Documentation/INDEX.md')
  assert.equal(row.accepts, 1)
  assert.equal(row.rejects, 0)
  const was = before.find((r) => r.companion === 'Documentation/INDEX.md')
  assert.ok(was === undefined || was.step < row.step, `the rate moved: ${JSON.stringify([was, row])}`)
  // Without an argument, the workspace of the working directory.
  const cwd = process.cwd()
  process.chdir(path.join(ws, 'Documentation'))
  try {
    assert.deepEqual(engine.rates(), rates)
  } finally {
    process.chdir(cwd)
  }
  assert.equal(engine.stats().stats.accepted, 1)
  await engine.close()
})

test('learning persists across close and a new open on the same store', async () => {
  const file = store('persist.redb')
  const first = await Engine.open({ storePath: file, log: false })
  assert.equal(first.stats().store, 'redb')
  const health = first.stats().storeHealth
  assert.equal(health.kind, 'redb')
  assert.equal(health.degraded, null)
  assert.deepEqual([health.retries, health.recoveries, health.writtenBack, health.lost], [0, 0, 0, 0])
  first.judge(plan())
  first.judge(read('Documentation/INDEX.md'))
  first.turn('a')
  assert.ok((await first.flush()).durable > 0)
  const learned = first.rates(ws)
  await first.close()

  const second = await Engine.open({ storePath: file, log: false })
  assert.equal(second.stats().store, 'redb')
  assert.deepEqual(second.rates(ws), learned)
  const row = learned.rows.find((r) => r.companion === 'Documentation/INDEX.md')
  assert.equal(row.accepts, 1)
  await second.close()
})

test('a store that cannot open falls back to memory and says so in the ledger', async () => {
  const garbage = store('garbage.redb')
  fs.writeFileSync(garbage, 'this is not a redb file at all, just text')
  const engine = await Engine.open({ storePath: garbage, log: false })
  assert.equal(engine.ledger.length, 2)
  assert.match(engine.ledger[1], /^doc-suggester: store unavailable \(.+\), using memory$/)
  assert.equal(engine.stats().store, 'memory')
  assert.deepEqual(engine.stats().startup, engine.ledger)
  const health = engine.stats().storeHealth
  assert.equal(health.kind, 'memory')
  assert.match(health.degraded, /corrupt or not a docsuggest store/)
  assert.equal(health.retries, 0, 'a file that is not a store is not retried')
  assert.notEqual(engine.judge(plan()).note, null, 'the engine still judges')
  await engine.close()

  // A store that cannot be written: its directory is a regular file.
  const unwritable = await Engine.open({ storePath: path.join(garbage, 'store.redb'), log: false })
  assert.match(unwritable.ledger[1], /^doc-suggester: store unavailable \(.+\), using memory$/)
  assert.equal(unwritable.stats().store, 'memory')
  assert.deepEqual(await unwritable.flush(), { durable: 0 })
  await unwritable.close()

  const held = store('held.redb')
  const holder = await Engine.open({ storePath: held, log: false })
  const second = await Engine.open({ storePath: held, log: false })
  assert.equal(holder.stats().store, 'redb')
  assert.match(second.ledger[1], /^doc-suggester: store unavailable \(.+\), using memory$/)
  await second.close()
  await holder.close()
})

/** The codes of a value that does not fit: a `TypeError`; every other failure an `Error`. */
const TYPE_ERRORS = ['missing-field', 'wrong-type', 'invalid-config']

/**
 * Asserts that `run` throws (or rejects with) an Error whose code is `code`, a TypeError when
 * the code says the value does not fit.
 */
async function fails (code, run, message) {
  let thrown
  try {
    await run()
  } catch (e) {
    thrown = e
  }
  assert.ok(thrown instanceof Error, `${code}: an Error was thrown (${thrown})`)
  assert.equal(thrown.code, code, `${code}: ${thrown.message}`)
  assert.equal(thrown instanceof TypeError, TYPE_ERRORS.includes(code), `${code}: ${thrown}`)
  assert.ok(thrown.message.length > 0)
  if (message) assert.match(thrown.message, message)
  return thrown
}

test('every failure is an Error with the protocol code', async () => {
  await fails('invalid-config', () => Engine.open({ threshold: 'high', bogus: 1, memory: 'yes' }),
    /3 problems\): memory: .*bogus: unknown field; threshold: /)
  // A misspelt option is refused, by name, not ignored.
  await fails('invalid-config', () => Engine.open({ memory: true, durabilty: 'group' }),
    /durabilty: unknown field/)
  await fails('invalid-config', () => Engine.open('memory'))
  const promise = Engine.open({ durability: 'never', memory: true })
  assert.ok(promise instanceof Promise, 'a bad option rejects rather than throws')
  await fails('invalid-config', () => promise, /durability/)

  const engine = await Engine.open({ memory: true, log: false })
  // Values JSON cannot carry are refused, never followed until the stack overflows.
  const cyclic = { agent: 'a', tool: 'read', path: '/x' }
  cyclic.self = cyclic
  const nested = (depth) => {
    const root = {}
    let at = root
    for (let i = 0; i < depth; i++) at = at.x = {}
    return root
  }
  const cases = [
    ['wrong-type', () => engine.judge()],
    ['wrong-type', () => engine.judge('Documentation/Plans/X.md')],
    ['missing-field', () => engine.judge({ agent: 'a', tool: 'read' })],
    ['missing-field', () => engine.judge({ agent: 'a', tool: 'read', path: undefined })],
    ['wrong-type', () => engine.judge({ agent: 'a', tool: 'read', path: 3 })],
    ['wrong-type', () => engine.judge({ agent: 'a', tool: 'read', path: () => 'x' })],
    ['wrong-type', () => engine.judge({ agent: 'a', tool: 'read', path: 2n })],
    ['wrong-type', () => engine.judge({ agent: 'a', tool: 'read', path: '/x', cwd: Symbol('s') })],
    ['wrong-type', () => engine.judge({ agent: 'a', tool: 'read', path: '/x', cwd: NaN })],
    ['wrong-type', () => engine.judge(cyclic)],
    ['wrong-type', () => engine.configure(nested(100000))],
    ['unknown-tool', () => engine.judge({ agent: 'a', tool: 'bogus', path: '/x' })],
    ['relative-path-without-cwd', () => engine.judge({ agent: 'a', tool: 'read', path: 'X.md' })],
    ['relative-cwd', () => engine.judge({ agent: 'a', tool: 'read', path: 'X.md', cwd: 'rel' })],
    ['nul-byte', () => engine.judge({ agent: 'a', tool: 'read', path: '/w/a\u0000b.md' })],
    ['empty-field', () => engine.judge({ agent: '', tool: 'read', path: '/w/x.md' })],
    ['path-above-root', () => engine.judge({ agent: 'a', tool: 'read', path: '/../../x' })],
    ['missing-field', () => engine.turn()],
    ['wrong-type', () => engine.turn(7)],
    ['nul-byte', () => engine.turn('a\u0000')],
    ['missing-field', () => engine.configure()],
    ['wrong-type', () => engine.configure([])],
    ['invalid-config', () => engine.configure({ threshold: 2, learnWindow: 0, bogus: true })],
    ['unknown-workspace', () => engine.rates('/')],
    ['wrong-type', () => engine.rates(5)],
  ]
  for (const [code, run] of cases) await fails(code, run)
  const config = await fails('invalid-config', () => engine.configure({ threshold: 2, bogus: true }))
  assert.match(config.message, /bogus: unknown field/)
  assert.match(config.message, /threshold: /)
  // None of that changed anything: the engine still answers as a fresh one does.
  assert.equal(engine.stats().stats.judged, 0)
  assert.notEqual(engine.judge(plan()).note, null)

  await engine.close()
  for (const run of [
    () => engine.judge(plan()),
    () => engine.turn('a'),
    () => engine.configure({ threshold: 0.5 }),
    () => engine.rates(ws),
    () => engine.stats(),
    () => engine.flush(),
    () => engine.close(),
  ]) {
    await fails('closed', run, /closed/)
  }
})

test('turn, configure, flush and stats answer what the protocol answers', async () => {
  const engine = await Engine.open({ memory: true, log: false })
  engine.judge(plan())
  // The turn ends the note's window: nothing it named was read, so it closes as a reject.
  assert.deepEqual(engine.turn('a'), {
    ledger: ['doc-suggester: rejected Plan companions Documentation/INDEX.md,' +
      'Documentation/ARCHIVE-STYLE.md,POC-BRIEF.md,CHANGELOG.md'],
    warnings: [],
  })
  assert.equal(engine.stats().stats.rejected, 1, 'the open window closed as a reject')
  const configured = engine.configure({ threshold: 0.5 })
  assert.equal(configured.ledger.length, 1)
  assert.match(configured.ledger[0], /threshold 0\.5/)
  assert.deepEqual(engine.configure({ storePath: store('other.redb') }).warnings, [
    'storePath takes effect at the next start; this engine keeps its open store',
  ])
  assert.deepEqual(await engine.flush(), { durable: 0 })
  const stats = engine.stats()
  assert.equal(stats.stats.judged, 1)
  assert.equal(stats.stats.notes, 1)
  assert.equal(stats.store, 'memory')
  assert.equal(await engine.close(), undefined)
})
