// GitHub Copilot CLI, with `docsuggest install-hooks --harness copilot` (.github/hooks/docsuggest.json).

import { cliPath } from './lib/clis.mjs';
import { agentSuite, runProcess } from './lib/suite.mjs';

agentSuite({
  name: 'copilot',
  harness: 'copilot',
  // COPILOT_OFFLINE turns off sign-in, telemetry, update checks and GitHub's MCP server.
  startupHosts: [],
  marker: 'edit',
  // Copilot's own tools: `view` reads, `edit` replaces a string (`path`, `old_str`, `new_str`).
  touch: (project, rel, from, to) => {
    const path = project.file(rel);
    return [
      { call: { name: 'view', input: { path } } },
      { call: { name: 'edit', input: { path, old_str: from, new_str: to } } },
    ];
  },
  run: ({ project, model, sink, prompt }) => runProcess(
    cliPath('copilot'),
    ['-p', prompt, '--output-format', 'json'],
    {
      cwd: project.repo,
      env: {
        ...project.env, ...sink.env(),
        COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_TYPE: 'anthropic', COPILOT_PROVIDER_BASE_URL: model.url,
        COPILOT_PROVIDER_API_KEY: 'dummy', COPILOT_MODEL: 'claude-sonnet-4.5',
        // Exactly "true" also trusts the working directory, whose hooks then load.
        COPILOT_ALLOW_ALL: 'true', COPILOT_AUTO_UPDATE: 'false',
      },
    },
  ),
});
