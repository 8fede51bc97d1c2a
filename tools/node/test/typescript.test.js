'use strict'
// index.d.ts as a TypeScript user meets it: `tsc --noEmit` (the typescript devDependency)
// compiles support/types/ok.ts, and refuses support/types/bad.ts on exactly the lines marked
// `// error` — a misspelt option, a tool that is not one, a field `configure` does not take.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const tsc = require.resolve('typescript/bin/tsc', { paths: [root] })
const FLAGS = ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022',
  '--module', 'nodenext', '--moduleResolution', 'nodenext']

/** tsc over one fixture: its exit status and the lines it reports an error on. */
function check (fixture) {
  const run = spawnSync(process.execPath, [tsc, ...FLAGS, `support/types/${fixture}`], {
    cwd: root,
    encoding: 'utf8',
  })
  if (run.error) throw run.error
  const output = run.stdout + run.stderr
  const lines = [...output.matchAll(/^support\/types\/[\w.]+\((\d+),\d+\): error TS\d+/gm)]
    .map((m) => Number(m[1]))
  return { status: run.status, output, lines: [...new Set(lines)] }
}

test('a harness written in TypeScript compiles against index.d.ts', () => {
  const { status, output } = check('ok.ts')
  assert.equal(status, 0, output)
})

test('a misspelt option, a wrong tool and a field configure does not take do not compile', () => {
  const source = fs.readFileSync(path.join(root, 'support', 'types', 'bad.ts'), 'utf8').split('\n')
  const marked = source.flatMap((line, i) => (/\/\/ error$/.test(line) ? [i + 1] : []))
  assert.ok(marked.length >= 8, 'the fixture marks its mistakes')
  const { status, output, lines } = check('bad.ts')
  assert.notEqual(status, 0, 'tsc refuses the fixture')
  assert.deepEqual(lines, marked, output)
  assert.match(output, /'durabilty' does not exist in type 'EngineOptions'/)
  assert.match(output, /Type '"reed"' is not assignable to type 'Tool'/)
})
