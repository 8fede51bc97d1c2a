// OpenCode, with `docsuggest install-hooks --harness opencode` (a plugin in .opencode/plugins/).
//
// Plain `opencode run` ends at the session's first idle, before a plugin's re-prompt on
// `session.idle` is seen; the re-prompt needs a server that outlives it: `opencode serve`,
// with the prompt sent by `opencode run --attach`.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath } from './lib/clis.mjs';
import { agentSuite, runProcess } from './lib/suite.mjs';
import { waitForQuiet, waitUntil } from './lib/wait.mjs';

/** The user's config: the scripted model as an OpenAI-compatible provider (bundled with
 * OpenCode: nothing to download), for the agent and for titles. */
function config(model) {
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    provider: {
      scripted: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted',
        options: { baseURL: `${model.url}/v1`, apiKey: 'dummy' },
        models: { 'scripted-model': { name: 'Scripted', tool_call: true } },
      },
    },
    model: 'scripted/scripted-model',
    small_model: 'scripted/scripted-model',
  };
}

/** Starts `opencode serve` on a free loopback port: `{child, url, output()}`. */
async function serve(env, cwd) {
  const child = spawn(cliPath('opencode'), ['serve', '--port', '0', '--hostname', '127.0.0.1'], {
    cwd, env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let url = null;
  child.stdout.on('data', (d) => {
    output += d;
    url ??= output.match(/https?:\/\/127\.0\.0\.1:\d+/)?.[0] ?? null;
  });
  child.stderr.on('data', (d) => { output += d; });
  const exited = new Promise((resolve) => child.on('close', resolve));
  const up = await waitUntil(() => url !== null || child.exitCode !== null, { limitMs: 60_000 });
  if (!up || !url) {
    child.kill('SIGKILL');
    throw new Error(`opencode serve did not start:\n${output}`);
  }
  return { child, url, exited, output: () => output };
}

/** Whether no session of the server is busy. */
async function idle(url) {
  try {
    const status = await (await fetch(`${url}/session/status`)).json();
    return Object.values(status).every((s) => s?.type === 'idle');
  } catch {
    return false;
  }
}

agentSuite({
  name: 'opencode',
  harness: 'opencode',
  // At start-up OpenCode installs @opencode-ai/plugin into its config directories from npm.
  startupHosts: ['registry.npmjs.org'],
  marker: 'edit',
  // OpenCode refuses an edit of a file it has not read.
  touch: (project, rel, from, to) => {
    const filePath = project.file(rel);
    return [
      { call: { name: 'read', input: { filePath } } },
      { call: { name: 'edit', input: { filePath, oldString: from, newString: to } } },
    ];
  },
  setup: ({ project, model }) => {
    const dir = path.join(project.home, '.config/opencode');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'opencode.json'), `${JSON.stringify(config(model), null, 2)}\n`);
  },
  run: async ({ project, model, sink, prompt }) => {
    const env = {
      ...project.env, ...sink.env(),
      // OpenCode takes its directory from PWD.
      PWD: project.repo,
      OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1', OPENCODE_DISABLE_SHARE: '1',
    };
    const server = await serve(env, project.repo);
    try {
      const run = await runProcess(cliPath('opencode'), ['run', '--attach', server.url, '--dir', project.repo, prompt], {
        cwd: project.repo, env,
      });
      // The re-prompt, if any, goes on in the server: wait for the script's end, then for the
      // server to go quiet (its last idle answered, no request to the model since).
      await waitUntil(() => model.finished(), { limitMs: 60_000 });
      await waitForQuiet(async () => [await idle(server.url), model.requests.length]);
      return { status: run.status, output: `${run.output}\n--- opencode serve ---\n${server.output()}` };
    } finally {
      server.child.kill('SIGTERM');
      const stopped = await waitUntil(() => server.child.exitCode !== null || server.child.signalCode !== null, { limitMs: 10_000 });
      if (!stopped) server.child.kill('SIGKILL');
      await server.exited;
    }
  },
});
