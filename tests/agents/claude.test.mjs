// Claude Code, with `docsuggest install-hooks --harness claude-code` (.claude/settings.json).

import { cliPath } from './lib/clis.mjs';
import { agentSuite, runProcess } from './lib/suite.mjs';

agentSuite({
  name: 'claude',
  harness: 'claude-code',
  // CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC keeps it on the model's URL alone.
  startupHosts: [],
  marker: 'Edit',
  // Claude Code refuses an Edit of a file it has not Read.
  touch: (project, rel, from, to) => {
    const file_path = project.file(rel);
    return [
      { call: { name: 'Read', input: { file_path } } },
      { call: { name: 'Edit', input: { file_path, old_string: from, new_string: to } } },
    ];
  },
  run: ({ project, model, sink, prompt }) => runProcess(
    cliPath('claude'),
    // As root --dangerously-skip-permissions is refused; acceptEdits lets Edit run.
    ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits'],
    {
      cwd: project.repo,
      env: {
        ...project.env, ...sink.env(),
        ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'dummy',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    },
  ),
});
