'use strict'
// Judge latency through the addon vs through `docsuggest serve` over a pipe, as a harness
// sees it: from the call to the answer in JS. Rounds alternate the two transports so a change
// in machine load hits both alike.
//
//   node bench/judge.js [--calls N] [--rounds R] [--out FILE]
//
// It uses the release build of `serve` (cargo build --release --bin docsuggest) unless
// DOCSUGGEST_BIN names another.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Engine } = require('..')
const { Serve } = require('../support/serve')
const { makeWorkspace, removeWorkspace } = require('../support/workspace')

function option (name, fallback) {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : process.argv[at + 1]
}
const CALLS = Number(option('calls', 3000))
const ROUNDS = Number(option('rounds', 5))
const OUT = option('out', path.join(__dirname, 'results.json'))
const WARMUP = 300

if (!process.env.DOCSUGGEST_BIN) {
  const target = process.env.CARGO_TARGET_DIR || path.join(__dirname, '..', '..', '..', 'target')
  process.env.DOCSUGGEST_BIN = path.join(target, 'release', 'docsuggest')
}

/** The i-th call of a cycle: a plan read (a note), a companion read (an accept), a grep. */
function callOf (ws, i) {
  const agent = `agent-${Math.floor(i / 3) % 16}`
  const file = ['Documentation/Plans/X.md', 'Documentation/INDEX.md', 'src/lib.rs'][i % 3]
  return { agent, tool: i % 3 === 2 ? 'grep' : 'read', path: file, cwd: ws }
}

/** Runs `count` judge calls through `judge` (sync or async); answers the times in µs. */
async function measure (ws, count, judge, turn) {
  const times = []
  for (let i = 0; i < WARMUP + count; i++) {
    const call = callOf(ws, i)
    const start = process.hrtime.bigint()
    await judge(call)
    const took = Number(process.hrtime.bigint() - start) / 1000
    if (i >= WARMUP) times.push(took)
    // The turn ends a cycle untimed, so every cycle starts with a fresh note.
    if (i % 3 === 2) await turn(call.agent)
  }
  return times
}

function percentile (sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

function summary (times) {
  const sorted = [...times].sort((a, b) => a - b)
  return {
    calls: sorted.length,
    p50: +percentile(sorted, 50).toFixed(2),
    p99: +percentile(sorted, 99).toFixed(2),
  }
}

async function cell (ws, store, transport) {
  const root = path.dirname(ws)
  const storePath = path.join(root, `${transport}-${Math.random().toString(36).slice(2)}.redb`)
  const options = store === 'memory'
    ? { memory: true, log: false }
    : { storePath, log: false, durability: 'group' }
  if (transport === 'addon') {
    const engine = await Engine.open(options)
    const times = await measure(ws, CALLS, (c) => engine.judge(c), (a) => engine.turn(a))
    await engine.close()
    return times
  }
  const config = path.join(root, 'serve-config.json')
  fs.writeFileSync(config, JSON.stringify({ log: false, durability: 'group' }))
  const args = store === 'memory' ? ['--memory'] : ['--store', storePath]
  const server = new Serve([...args, '--config', config])
  const times = await measure(
    ws,
    CALLS,
    (c) => server.request({ op: 'judge', ...c }),
    (a) => server.request({ op: 'turn', agent: a }),
  )
  await server.end()
  return times
}

async function main () {
  const ws = makeWorkspace()
  const load = [os.loadavg()[0]]
  const cells = {}
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['addon', 'serve'] : ['serve', 'addon']
      for (const store of ['memory', 'redb']) {
        for (const transport of order) {
          const key = `${store}/${transport}`
          cells[key] = (cells[key] || []).concat(await cell(ws, store, transport))
        }
      }
    }
  } finally {
    removeWorkspace(ws)
  }
  load.push(os.loadavg()[0])
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    load_average: { before: load[0], after: load[1] },
    rounds: ROUNDS,
    calls_per_round: CALLS,
    cells: Object.fromEntries(Object.entries(cells).map(([k, t]) => [k, summary(t)])),
  }
  fs.writeFileSync(OUT, JSON.stringify(results, null, 2) + '\n')
  console.log('| store | transport | calls | p50 µs | p99 µs |')
  console.log('|---|---|---:|---:|---:|')
  for (const [key, s] of Object.entries(results.cells)) {
    const [store, transport] = key.split('/')
    console.log(`| ${store} | ${transport} | ${s.calls} | ${s.p50} | ${s.p99} |`)
  }
  console.log(`load average ${load[0].toFixed(2)} before, ${load[1].toFixed(2)} after; wrote ${OUT}`)
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
