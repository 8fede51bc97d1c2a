'use strict'
// What npm would publish: the main package ships the loader, the types and the license; one
// package per napi target carries that platform's module, as `napi create-npm-dirs` makes
// them, and index.js loads each of them by name.
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const root = path.join(__dirname, '..')
const manifest = require('../package.json')
const read = (...parts) => fs.readFileSync(path.join(root, ...parts), 'utf8')

/** The files `npm pack` puts in the tarball of the package in `dir`. */
function packed (dir) {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  return JSON.parse(out)[0].files.map((f) => f.path).sort()
}

test('the package ships the loader, the types, the license and the readme', () => {
  assert.equal(manifest.private, undefined, 'publishable')
  assert.deepEqual(packed(root), ['LICENSE', 'README.md', 'index.d.ts', 'index.js', 'package.json'])
})

test('the license is the one the workspace declares', () => {
  const workspace = read('..', '..', 'Cargo.toml')
  assert.match(workspace, new RegExp(`^license = "${manifest.license}"$`, 'm'))
  const license = read('LICENSE')
  assert.match(license, /^@docsuggest\/node is licensed under either of/)
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/)
  assert.match(license, /\nMIT License\n/)
})

test('index.js checks the version package.json says', () => {
  // napi build writes the version into the loader; `npm version` needs `npm run build:napi`.
  const versions = [...read('index.js').matchAll(/expected ([^ ]+) but got/g)].map((m) => m[1])
  assert.ok(versions.length > 0)
  assert.deepEqual([...new Set(versions)], [manifest.version])
})

test('each napi target has its package, as create-npm-dirs makes it', () => {
  // Regenerated from package.json in a scratch copy, then compared with the committed ones.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'docsuggest-npm-dirs-'))
  try {
    fs.copyFileSync(path.join(root, 'package.json'), path.join(scratch, 'package.json'))
    const napi = path.join(path.dirname(require.resolve('@napi-rs/cli/package.json')), 'dist', 'cli.js')
    const run = spawnSync(process.execPath, [napi, 'create-npm-dirs', '--cwd', scratch], { encoding: 'utf8' })
    assert.equal(run.status, 0, run.stdout + run.stderr)
    const dirs = fs.readdirSync(path.join(scratch, 'npm')).sort()
    assert.deepEqual(fs.readdirSync(path.join(root, 'npm')).sort(), dirs)
    assert.equal(dirs.length, manifest.napi.targets.length, `${dirs}`)
    for (const dir of dirs) {
      for (const file of ['package.json', 'README.md']) {
        assert.equal(read('npm', dir, file), fs.readFileSync(path.join(scratch, 'npm', dir, file), 'utf8'),
          `npm/${dir}/${file} is what create-npm-dirs writes`)
      }
      assert.equal(read('npm', dir, 'LICENSE'), read('LICENSE'), `npm/${dir}/LICENSE`)
      const node = `${manifest.napi.binaryName}.${dir}.node`
      assert.deepEqual(JSON.parse(read('npm', dir, 'package.json')).files, [node])
      // The loader looks for the module next to itself, then in the platform's package.
      const loader = read('index.js')
      assert.ok(loader.includes(`require('./${node}')`), `index.js loads ./${node}`)
      assert.ok(loader.includes(`require('${manifest.name}-${dir}')`), `index.js loads ${manifest.name}-${dir}`)
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
})
