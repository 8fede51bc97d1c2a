// A project the way a user of an agent CLI has it: a git repository whose history pairs every
// `src/modK.py` change with `tests/test_modK.py`, its pack mined by `docsuggest init` (or left
// to the hooks' daemon to mine) and the hooks installed by `docsuggest install-hooks`, both
// committed, in a HOME of its own.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');

/** The directory holding the `docsuggest` and `docsuggest-hook` under test. */
export function binDir() {
  const target = process.env.CARGO_TARGET_DIR || path.join(repoRoot, 'target');
  const dir = process.env.DOCSUGGEST_BIN_DIR || path.join(target, 'debug');
  for (const name of ['docsuggest', 'docsuggest-hook']) {
    const bin = path.join(dir, name);
    if (!fs.existsSync(bin)) {
      throw new Error(`${bin} is missing: build it (cargo build -p docsuggest-cli --bins) or set DOCSUGGEST_BIN_DIR`);
    }
  }
  return dir;
}

/** The commit history's files: every module and its test start at "0". */
function initialFiles(modules) {
  const files = { 'README.md': '# fixture\n' };
  for (let k = 0; k < modules; k++) {
    files[`src/mod${k}.py`] = `VALUE = 0\n`;
    files[`tests/test_mod${k}.py`] = `from src.mod${k} import VALUE\n\nassert VALUE >= 0\n`;
  }
  return files;
}

/** `git fast-import` input for `commits` commits: each changes one module and its test
 * (every fourth only the README), so the miner learns `src/{}.py` → `tests/test_{}.py`. */
function history(commits, modules) {
  const files = initialFiles(modules);
  const blob = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let out = '';
  for (let i = 0; i < commits; i++) {
    const changed = {};
    if (i === 0) Object.assign(changed, files);
    else if (i % 4 === 0) changed['README.md'] = `# fixture\n\nrevision ${i}\n`;
    else {
      const k = i % modules;
      changed[`src/mod${k}.py`] = `VALUE = ${i}\n`;
      changed[`tests/test_mod${k}.py`] = `from src.mod${k} import VALUE\n\nassert VALUE >= ${i}\n`;
    }
    const when = 1700000000 + i * 3600;
    const message = `change ${i}\n`;
    out += `commit refs/heads/main\ncommitter Fixture <fixture@example.invalid> ${when} +0000\n`;
    out += `data ${Buffer.byteLength(message)}\n${message}`;
    for (const [file, text] of Object.entries(changed)) out += `M 100644 inline ${file}\n${blob(text)}`;
    out += '\n';
  }
  return out;
}

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Fixture', GIT_AUTHOR_EMAIL: 'fixture@example.invalid',
  GIT_COMMITTER_NAME: 'Fixture', GIT_COMMITTER_EMAIL: 'fixture@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

export function git(cwd, args, env = {}) {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV, ...env }, encoding: 'utf8' });
}

/** A temporary directory, removed with `removeTemp`. */
export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `docsuggest-agents-${prefix}-`));
}

export class Project {
  /**
   * @param {string} name the CLI, for names
   * @param {object} opts `harness`: the `install-hooks --harness` value, or null for none;
   *   `init`: whether `docsuggest init` writes the pack (else the hooks' daemon mines it)
   */
  constructor(name, { harness, init = true }) {
    this.root = tempDir(name);
    this.home = path.join(this.root, 'home');
    this.repo = path.join(this.root, 'repo');
    this.bin = binDir();
    fs.mkdirSync(this.home);
    fs.mkdirSync(this.repo);
    // The CLIs run with this PATH too: the hooks find docsuggest-hook on it, by name.
    this.env = {
      ...process.env, ...GIT_ENV,
      HOME: this.home, XDG_CONFIG_HOME: path.join(this.home, '.config'),
      XDG_DATA_HOME: path.join(this.home, '.local/share'), XDG_CACHE_HOME: path.join(this.home, '.cache'),
      XDG_STATE_HOME: path.join(this.home, '.local/state'),
      PATH: `${this.bin}:${process.env.PATH}`,
    };
    try {
      this.prepare(harness, init);
    } catch (e) {
      fs.rmSync(this.root, { recursive: true, force: true });
      throw e;
    }
  }

  /** The repository with its history, its pack (`init`) and the hooks, committed. */
  prepare(harness, init) {
    git(this.repo, ['init', '-q', '-b', 'main']);
    // fast-import chains the commits of one branch: one process for the whole history.
    execFileSync('git', ['fast-import', '--quiet'], { cwd: this.repo, input: history(200, 6), env: this.env, encoding: 'utf8' });
    git(this.repo, ['checkout', '-q', '-f', 'main']);
    if (init) this.docsuggest(['init', '--no-backtest']);
    if (harness) this.docsuggest(['install-hooks', '--harness', harness, '--project', '.']);
    git(this.repo, ['add', '-A']);
    git(this.repo, ['commit', '-q', '--allow-empty', '-m', 'docsuggest: pack and hooks']);
  }

  /** Runs `docsuggest` in the repository; throws with its output when it fails. */
  docsuggest(args) {
    const run = spawnSync(path.join(this.bin, 'docsuggest'), args, { cwd: this.repo, env: this.env, encoding: 'utf8' });
    if (run.status !== 0) {
      throw new Error(`docsuggest ${args.join(' ')} exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
    }
    return run.stdout;
  }

  file(rel) {
    return path.join(this.repo, rel);
  }

  read(rel) {
    return fs.readFileSync(this.file(rel), 'utf8');
  }

  /** The work tree's changed files (`git status --porcelain`), as paths. */
  changed() {
    return git(this.repo, ['status', '--porcelain', '--untracked-files=all'])
      .split('\n').filter(Boolean).map((l) => l.slice(3)).sort();
  }

  /** The daemon's ledger (the default `logFile` under this HOME). */
  ledger() {
    const file = path.join(this.home, '.dsh/playform/hook-dsh-doc-suggester.log');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  }

  /** The hook log: every silence with its reason. */
  hookLog() {
    const file = path.join(this.home, '.dsh/playform/docsuggest.sock.log');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  }

  /** The store's resolved decisions (`docsuggest history --json`, which asks the daemon to
   * flush first): `{decision: {agent, family, outcome, accepted, …}, moves}` each. */
  history() {
    return JSON.parse(this.docsuggest(['history', '--json']));
  }

  /** Stops the daemon the hooks started (by its pid file) and waits for it to go, then
   * removes everything (kept with DOCSUGGEST_AGENTS_KEEP=1, to look at). */
  async dispose() {
    const pidFile = path.join(this.home, '.dsh/playform/docsuggest.sock.pid');
    const pid = fs.existsSync(pidFile) ? Number.parseInt(fs.readFileSync(pidFile, 'utf8').trim(), 10) : 0;
    if (pid > 0 && alive(pid)) {
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    }
    if (process.env.DOCSUGGEST_AGENTS_KEEP) console.log(`kept ${this.root}`);
    else fs.rmSync(this.root, { recursive: true, force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
