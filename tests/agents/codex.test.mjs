// Codex CLI, with `docsuggest install-hooks --harness codex` (.codex/hooks.json).

import fs from 'node:fs';
import path from 'node:path';
import { cliPath } from './lib/clis.mjs';
import { agentSuite, runProcess } from './lib/suite.mjs';

/** CODEX_HOME's config: the scripted model as a Responses provider, nothing else reached. */
function config(model, repo) {
  return `model = "gpt-5.5"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = "${model.url}/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
enable_request_compression = false

[analytics]
enabled = false

# Codex reads a project's .codex/ only in a trusted project.
[projects.${JSON.stringify(repo)}]
trust_level = "trusted"
`;
}

agentSuite({
  name: 'codex',
  harness: 'codex',
  startupHosts: [],
  marker: 'apply_patch',
  // Codex edits with apply_patch, a free-form tool: the patch is the call's whole input.
  touch: (_project, rel, from, to) => [
    { call: { name: 'apply_patch', input: `*** Begin Patch\n*** Update File: ${rel}\n@@\n-${from}\n+${to}\n*** End Patch\n` } },
  ],
  setup: ({ project, model }) => {
    const home = path.join(project.home, '.codex');
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'config.toml'), config(model, project.repo));
  },
  run: ({ project, sink, prompt }) => runProcess(
    cliPath('codex'),
    // Without --dangerously-bypass-hook-trust `exec` runs no hooks it has not reviewed.
    ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', prompt],
    {
      cwd: project.repo,
      env: { ...project.env, ...sink.env(), CODEX_HOME: path.join(project.home, '.codex'), SCRIPTED_API_KEY: 'dummy' },
    },
  ),
});
