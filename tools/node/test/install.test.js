'use strict'
// What a user gets from npm: `@docsuggest/node` as `napi prepublish` publishes it (the loader
// with one optional dependency per platform) and this platform's package holding the module
// `npm run build:debug` built, packed, installed into a fresh project with no network, and
// judging a plan from there. Nothing of this directory is needed once installed.
const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { makeWorkspace, removeWorkspace } = require('../support/workspace')
const { platformArchAbi } = require('../../npm/lib/platform')

const root = path.join(__dirname, '..')
const manifest = require('../package.json')
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'docsuggest-addon-npm-'))
const ws = makeWorkspace()
after(() => {
  fs.rmSync(work, { recursive: true, force: true })
  removeWorkspace(ws)
})

/** Packs `dir` into `work`; answers the tarball's path. */
function pack (dir) {
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
    cwd: dir,
    encoding: 'utf8',
  })
  return path.join(work, JSON.parse(out)[0].filename)
}

test('the packed addon installs offline and judges', () => {
  const suffix = platformArchAbi()
  const module = path.join(root, `${manifest.napi.binaryName}.${suffix}.node`)
  assert.ok(fs.existsSync(module), `no ${path.basename(module)}: run \`npm run build:debug\` first`)

  // The main package as `napi prepublish` writes it: an optional dependency per platform.
  const main = path.join(work, 'main')
  fs.mkdirSync(main)
  for (const file of manifest.files.concat(['README.md'])) {
    fs.copyFileSync(path.join(root, file), path.join(main, file))
  }
  const optionalDependencies = Object.fromEntries(fs.readdirSync(path.join(root, 'npm'))
    .map((dir) => [require(path.join(root, 'npm', dir, 'package.json')).name, manifest.version]))
  fs.writeFileSync(path.join(main, 'package.json'),
    JSON.stringify({ ...manifest, optionalDependencies, devDependencies: undefined, scripts: undefined }, null, 2))
  const platform = path.join(work, 'platform')
  fs.cpSync(path.join(root, 'npm', suffix), platform, { recursive: true })
  fs.copyFileSync(module, path.join(platform, path.basename(module)))

  const tarballs = [pack(main), pack(platform)]
  const user = path.join(work, 'user')
  fs.mkdirSync(user)
  fs.writeFileSync(path.join(user, 'package.json'), JSON.stringify({ name: 'user', version: '1.0.0', private: true }))
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs], { cwd: user, stdio: 'ignore' })

  const script = `
    const { Engine } = require('@docsuggest/node')
    Engine.open({ memory: true, log: false }).then((engine) => {
      const verdict = engine.judge({ agent: 'a', tool: 'read', path: 'Documentation/Plans/X.md', cwd: ${JSON.stringify(ws)} })
      console.log(JSON.stringify({ family: verdict.note && verdict.note.family, from: require.resolve('@docsuggest/node') }))
    })`
  const run = spawnSync(process.execPath, ['-e', script], { cwd: user, encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  const answer = JSON.parse(run.stdout)
  assert.equal(answer.family, 'Plan')
  assert.ok(answer.from.startsWith(path.join(user, 'node_modules')), answer.from)
})
