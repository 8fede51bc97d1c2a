// Where the pinned agent CLIs live: a cache directory named by the hash of clis/package.json,
// so a changed pin installs afresh beside the old one and an installed set is never patched.
// Each package is pinned exactly, and pins its platform binaries exactly in turn.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PINS_DIR = path.resolve(here, '../clis');

/** Each CLI: its npm package and the executable it installs. */
export const CLIS = {
  claude: { package: '@anthropic-ai/claude-code', bin: 'claude' },
  codex: { package: '@openai/codex', bin: 'codex' },
  copilot: { package: '@github/copilot', bin: 'copilot' },
  opencode: { package: 'opencode-ai', bin: 'opencode' },
};

/** The pinned version of each package, as clis/package.json says. */
export function pins() {
  return JSON.parse(fs.readFileSync(path.join(PINS_DIR, 'package.json'), 'utf8')).dependencies;
}

/** The cache directory of this set of pins. */
export function installDir() {
  const cache = process.env.DOCSUGGEST_AGENTS_CACHE || path.join(os.homedir(), '.cache/docsuggest-agents');
  const pinned = fs.readFileSync(path.join(PINS_DIR, 'package.json'));
  const key = crypto.createHash('sha256').update(pinned).digest('hex').slice(0, 16);
  return path.join(path.resolve(cache), key);
}

/** The marker written once a set is installed and every CLI in it answered `--version`. */
export const INSTALLED_MARK = '.installed';

/** The executable of `name`; throws, naming the install command, when it is not installed. */
export function cliPath(name) {
  const dir = installDir();
  const bin = path.join(dir, 'node_modules/.bin', CLIS[name].bin);
  if (!fs.existsSync(path.join(dir, INSTALLED_MARK)) || !fs.existsSync(bin)) {
    throw new Error(`${name} is not installed in ${dir}: run \`node tests/agents/install.mjs\` first`);
  }
  return bin;
}
