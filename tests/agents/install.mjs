// Installs the pinned agent CLIs (clis/package.json) into the cache directory
// and checks that each one runs and reports its pinned version. Any failure exits non-zero:
// a missing download is a failed suite, never a skipped one.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLIS, INSTALLED_MARK, PINS_DIR, installDir, pins } from './lib/clis.mjs';
import { ProxySink } from './lib/sink.mjs';

function fail(message) {
  console.error(`install.mjs: ${message}`);
  process.exit(1);
}

/** Runs each CLI's `--version` with every host but loopback refused; fails on any mismatch. */
async function checkVersions(dir) {
  const sink = await new ProxySink().start();
  const versions = pins();
  try {
    for (const [name, cli] of Object.entries(CLIS)) {
      const bin = path.join(dir, 'node_modules/.bin', cli.bin);
      const run = spawnSync(bin, ['--version'], {
        encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...sink.env(), COPILOT_OFFLINE: 'true' },
      });
      const out = `${run.stdout ?? ''}${run.stderr ?? ''}`;
      if (run.error || run.status !== 0) fail(`${bin} --version failed (${run.error ?? `exit ${run.status}`}):\n${out}`);
      if (!out.includes(versions[cli.package])) fail(`${bin} --version says ${JSON.stringify(out.trim())}, not ${versions[cli.package]}`);
      console.log(`${name}: ${out.trim().split('\n')[0]}`);
    }
  } finally {
    await sink.stop();
  }
}

const dir = installDir();
if (!fs.existsSync(path.join(dir, INSTALLED_MARK))) {
  // Installed beside the final directory and renamed into place: a failed install leaves
  // nothing that looks installed.
  const staging = `${dir}.partial-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  fs.copyFileSync(path.join(PINS_DIR, 'package.json'), path.join(staging, 'package.json'));
  console.log(`installing the agent CLIs into ${dir}`);
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'], { cwd: staging, stdio: 'inherit' });
  if (npm.error || npm.status !== 0) fail(`npm install in ${staging} failed (${npm.error ?? `exit ${npm.status}`})`);
  await checkVersions(staging);
  fs.writeFileSync(path.join(staging, INSTALLED_MARK), `${JSON.stringify(pins())}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(staging, dir);
} else {
  await checkVersions(dir);
}
console.log(`the agent CLIs are in ${dir}`);
