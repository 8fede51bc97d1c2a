// Must not compile (test/typescript.test.js): each line marked `// error` is a mistake the
// types catch, and no other line has an error.
import { Engine } from '../..'

export async function mistakes (): Promise<void> {
  await Engine.open({ durabilty: 'group' }) // error
  await Engine.open({ durability: 'sometimes' }) // error
  await Engine.open({ weights: { bogus: 1 } }) // error
  await Engine.open({ tools: ['read', 'bash'] }) // error
  const engine = await Engine.open({ memory: true, threshold: 0.5 })
  engine.judge({ agent: 'a', tool: 'reed', path: '/w/X.md' }) // error
  engine.judge({ agent: 'a', tool: 'read' }) // error
  engine.configure({ memory: true }) // error
  engine.configure({ treshold: 0.5 }) // error
  await engine.close()
}
