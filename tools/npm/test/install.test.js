'use strict'
// What a user without Rust gets from npm: the `docsuggest` package and this platform's binary
// package, packed as they would be published, installed into a fresh project with no network,
// and run from there — `--version`, `status` in a git repository, and a hook — with no cargo
// on PATH. The binary is the workspace's debug build (`cargo test` made it), or
// DOCSUGGEST_BINARY.
const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { platformPackage, platformArchAbi, unsupported } = require('../lib/platform')

const root = path.join(__dirname, '..')
const version = require('../package.json').version
const built = process.env.DOCSUGGEST_BINARY ||
  path.join(root, '..', '..', 'target', 'debug', 'docsuggest')
let work

/** Packs the package in `dir` into `work`; answers the tarball's path. */
function pack (dir) {
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
    cwd: dir,
    encoding: 'utf8',
  })
  return path.join(work, JSON.parse(out)[0].filename)
}

/** A fresh project with `tarballs` installed, offline; answers its directory. */
function project (name, tarballs, extra = []) {
  const dir = path.join(work, name)
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }))
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', ...extra, ...tarballs], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  return dir
}

/** Runs the installed `docsuggest` with only node and the system on PATH. */
function docsuggest (dir, args, input) {
  const env = {
    PATH: [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
    HOME: path.join(work, 'home'),
  }
  return spawnSync(path.join(dir, 'node_modules', '.bin', 'docsuggest'), args, { env, input, encoding: 'utf8' })
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'docsuggest-npm-'))
  fs.mkdirSync(path.join(work, 'home'))
  assert.ok(fs.existsSync(built), `no binary at ${built}: run cargo build -p docsuggest-cli first`)
  execFileSync(process.execPath, [path.join(root, 'scripts', 'stage.js'), built], { stdio: 'ignore' })
})

after(() => {
  const pid = path.join(work, 'home', '.dsh', 'playform', 'docsuggest.sock.pid')
  if (fs.existsSync(pid)) {
    try { process.kill(Number(fs.readFileSync(pid, 'utf8').trim()), 'SIGTERM') } catch {}
  }
  fs.rmSync(work, { recursive: true, force: true })
})

test('the packed packages install offline and run the binary', () => {
  const main = pack(root)
  const binary = pack(path.join(root, 'npm', platformArchAbi()))
  const dir = project('user', [main, binary])
  const installed = path.join(dir, 'node_modules', ...platformPackage().split('/'))
  assert.ok(fs.existsSync(installed), platformPackage())

  const run = docsuggest(dir, ['--version'])
  assert.equal(run.status, 0, run.stderr)
  assert.equal(run.stdout.trim(), `docsuggest ${version}`)
  for (const dir of [path.dirname(process.execPath), '/usr/bin', '/bin']) {
    assert.equal(fs.existsSync(path.join(dir, 'cargo')), false, `cargo in ${dir}, on the command's PATH`)
  }

  const repo = path.join(work, 'repo')
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true })
  fs.writeFileSync(path.join(repo, 'src', 'a.py'), 'x\n')
  execFileSync('git', ['init', '--quiet', repo])
  const status = docsuggest(dir, ['status', path.join(repo, 'src', 'a.py')])
  assert.equal(status.status, 0, status.stderr)
  assert.match(status.stdout, /git work tree/)

  const event = JSON.stringify({
    hook_event_name: 'PostToolUse', session_id: 's', cwd: repo, tool_name: 'Read',
    tool_input: { file_path: path.join(repo, 'src', 'a.py') },
  })
  const hook = docsuggest(dir, ['hook', '--harness', 'claude-code'], event)
  assert.equal(hook.status, 0, hook.stderr)

  // install-hooks from the npm command writes the hooks to run the lean entry point the
  // platform package holds, by its path; that command answers the event as the harness runs it.
  const installedHooks = docsuggest(dir, ['install-hooks', '--harness', 'claude-code', '--project', repo])
  assert.equal(installedHooks.status, 0, installedHooks.stderr)
  const settings = JSON.parse(fs.readFileSync(path.join(repo, '.claude', 'settings.json'), 'utf8'))
  const command = settings.hooks.PostToolUse[0].hooks[0].command
  assert.match(command, /docsuggest-hook'? --harness claude-code$/)
  assert.ok(command.includes(installed), `${command} runs the platform package's entry point`)
  const env = { PATH: [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter), HOME: path.join(work, 'home') }
  const lean = spawnSync('/bin/sh', ['-c', command], { env, input: event, encoding: 'utf8' })
  assert.equal(lean.status, 0, lean.stderr)
  assert.equal(lean.stderr, '')

  // The MCP server through the npm command: the handshake and its tool list over stdio.
  const mcp = docsuggest(dir, ['mcp'], [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'npm-test', version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ].map((m) => JSON.stringify(m) + '\n').join(''))
  assert.equal(mcp.status, 0, mcp.stderr)
  const listed = mcp.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.id === 2)
  assert.ok(listed.result.tools.some((t) => t.name === 'companions'), mcp.stdout)
})

test('without the platform package the command says how to get it', () => {
  const main = pack(root)
  const dir = project('no-binary', [main], ['--omit=optional'])
  const run = docsuggest(dir, ['--version'])
  assert.equal(run.status, 1)
  assert.match(run.stderr, new RegExp(`npm install ${platformPackage().replace('/', '\\/')}`))
})

test('the platform packages are staged from one list, matching the optional dependencies', () => {
  const { PLATFORMS, manifest } = require('../scripts/stage')
  const optional = Object.keys(require('../package.json').optionalDependencies).sort()
  assert.deepEqual(PLATFORMS.map((p) => manifest(p).name).sort(), optional)
  for (const p of PLATFORMS) {
    const committed = JSON.parse(fs.readFileSync(path.join(root, 'npm', p.suffix, 'package.json'), 'utf8'))
    assert.deepEqual(committed, manifest(p))
  }
})

test('a system it does not run on is named, with what to do on Windows', () => {
  assert.equal(unsupported('linux'), null)
  assert.equal(unsupported('darwin'), null)
  assert.match(unsupported('win32'), /runs on Linux and macOS, not win32; on Windows, install and run it inside WSL/)
  assert.match(unsupported('freebsd'), /runs on Linux and macOS, not freebsd$/)
})
