// Must compile (test/typescript.test.js): what a harness written in TypeScript does with the
// module, every kind of option among it.
import { Engine } from '../..'
import type { ConfigPatch, EngineOptions, Heuristic, Rates, Tool, Verdict } from '../..'

export async function session (ws: string, log: (line: string) => void): Promise<number> {
  const options: EngineOptions = {
    memory: true,
    storePath: '/tmp/docsuggest.redb',
    durability: 'group',
    rateModel: 'evidence',
    tools: ['read', 'edit', 'raw-write'],
    heuristics: ['scope', 'graph'],
    weights: { scope: 0.5, accept: 0 },
    exclude: ['node_modules'],
    threshold: 0.75,
    zeroConfig: false,
  }
  const engine = await Engine.open(options)
  await (await Engine.open()).close()
  engine.ledger.forEach(log)

  const tools: Tool[] = ['read', 'grep', 'glob', 'write', 'edit', 'raw-write']
  for (const tool of tools) {
    const verdict: Verdict = engine.judge({ agent: 'a', tool, path: 'Documentation/Plans/X.md', cwd: ws })
    if (verdict.note !== null) log(verdict.note.companions.join(', '))
  }
  engine.turn('a').ledger.forEach(log)

  const patch: ConfigPatch = { threshold: 0.5, learnWindow: 2 }
  const enabled: Heuristic[] = ['prior']
  engine.configure(patch)
  engine.configure({ heuristics: enabled, durability: 'immediate' })
  const rates: Rates = engine.rates(ws)
  const model: 'evidence' | 'step' | 'beta' = rates.rateModel
  log(model)
  const { durable } = await engine.flush()
  await engine.close()
  return durable + engine.stats().stats.judged
}
