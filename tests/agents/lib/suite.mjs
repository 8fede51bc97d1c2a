// The end-to-end checks every agent CLI gets, run against one driver (a file per CLI): the
// project installed as the README says, the real CLI, the scripted model on 127.0.0.1 and
// every other host refused by the proxy sink.
//
// A driver is `{name, harness, startupHosts, touch(project, rel, from, to), marker, run}`:
// `touch` gives the model's steps that change `rel` (a read first where the CLI needs one),
// `marker` the tool whose offer marks the agent's own requests, `run(context)` runs the CLI
// once on a prompt and resolves to `{status, output}`.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Project } from './fixture.mjs';
import { DONE_TEXT, NOTE_MARK, REMINDER, ScriptedModel } from './model.mjs';
import { ProxySink } from './sink.mjs';

/** The module the model changes, and the companion the history pairs with it. */
export const SOURCE = 'src/mod1.py';
export const COMPANION = 'tests/test_mod1.py';
/** What the note on a change of SOURCE says (a repository pack's plain note). */
export const NOTE_HEADER = `${NOTE_MARK} Changes to .py files under src/ usually come with these files:`;
export const NOTE_LINE = `- update ${COMPANION} (`;
export const PROMPT = `Set VALUE in ${SOURCE} to 1000.`;

/** With this set the hooks are not installed: every check of the suite must then fail. */
const WITHOUT_HOOKS = Boolean(process.env.DOCSUGGEST_AGENTS_WITHOUT_HOOKS);
/** A CLI run taking longer than this is killed: the suite must end within minutes. */
const RUN_LIMIT_MS = 180_000;

/** Runs `command` to its exit (killed past RUN_LIMIT_MS): `{status, output}`. */
export function runProcess(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status: signal ? `killed by ${signal}` : status, output });
    });
  });
}

/** How often `needle` occurs in `text`. */
function count(text, needle) {
  return text.split(needle).length - 1;
}

/** Everything worth seeing when a check fails. */
function evidence(context, run) {
  const requests = context.model.requests.map((r, i) => `#${i} ${r.method} ${r.path} main=${r.main} ${JSON.stringify(r.step)}`);
  return [
    `CLI exit: ${run.status}`, `CLI output (tail):\n${run.output.slice(-4000)}`,
    `model requests:\n${requests.join('\n')}`, `proxy sink: ${JSON.stringify(context.sink.attempts)}`,
    `hook log:\n${context.project.hookLog()}`, `ledger:\n${context.project.ledger()}`,
  ].join('\n\n');
}

/** One scripted run of the driver's CLI in a fresh project. */
async function scriptedRun(driver, shared, script, { init = true } = {}) {
  const project = new Project(driver.name, { harness: WITHOUT_HOOKS ? null : driver.harness, init });
  const context = { project, model: shared.model, sink: shared.sink, prompt: PROMPT };
  shared.model.run({ marker: driver.marker, ...script(project) });
  const sinkFrom = shared.sink.attempts.length;
  try {
    if (driver.setup) await driver.setup(context);
    const run = await driver.run(context);
    const why = () => evidence(context, run);
    assert.equal(run.status, 0, `${driver.name} failed\n${why()}`);
    const requests = shared.model.agentRequests();
    assert.ok(requests.length > 0, `${driver.name} never asked the scripted model\n${why()}`);
    const last = requests.at(-1);
    assert.deepEqual(last.step, { text: DONE_TEXT }, `the model did not get to stop\n${why()}`);
    // Only the CLI's own start-up may try to leave loopback; everything else is docsuggest's.
    const left = shared.sink.hosts(sinkFrom).filter((h) => !driver.startupHosts.includes(h));
    assert.deepEqual(left, [], `hosts other than ${driver.name}'s start-up ones were tried\n${why()}`);
    return { project, requests, why };
  } catch (e) {
    await project.dispose();
    throw e;
  }
}

/** The steps changing SOURCE (VALUE) and COMPANION (its assertion) as the task needs. */
function changes(driver, project) {
  const value = project.read(SOURCE).trim();
  const check = project.read(COMPANION).trim().split('\n').at(-1);
  return {
    source: driver.touch(project, SOURCE, value, 'VALUE = 1000'),
    companion: driver.touch(project, COMPANION, check, 'assert VALUE >= 1000'),
  };
}

/** The resolved decisions of the session's agents: its own and its boundary's. */
function accepts(project) {
  const entries = project.history().map((e) => e.decision);
  const accepted = entries.filter((d) => d.outcome === 'accepted' && d.accepted === 'tests/test_{}.py');
  return {
    entries,
    calls: accepted.filter((d) => !d.agent.endsWith('/boundary')),
    boundary: accepted.filter((d) => d.agent.endsWith('/boundary')),
  };
}

/** A change missing its companion: the model changes SOURCE and stops; at the reminder it
 * changes COMPANION and stops again. With `init` false the repository has no pack file, so
 * the first judged call finds the daemon's pack still to be mined. */
async function missingCompanion(driver, shared, { init }) {
  let steps;
  const { project, requests, why } = await scriptedRun(driver, shared, (p) => {
    steps = changes(driver, p);
    return { first: steps.source, after: steps.companion };
  }, { init });
  try {
    const bodies = requests.map((r) => JSON.stringify(r.body));
    // The note: in the request after a source call (before the model's first stop), never
    // in the first one.
    const noted = bodies.findIndex((b) => b.includes(NOTE_HEADER));
    assert.ok(noted >= 1 && noted <= steps.source.length, `the note was not in the request after a call on ${SOURCE}\n${why()}`);
    assert.ok(bodies[noted].includes(NOTE_LINE), `the note does not name ${COMPANION}\n${why()}`);
    // The Stop reminder: once in the conversation, and the model ran the rest of the script.
    assert.equal(count(bodies.at(-1), REMINDER), 1, `the Stop reminder did not arrive exactly once\n${why()}`);
    assert.deepEqual(project.changed(), [SOURCE, COMPANION].sort(), `the model's edits are not in the work tree\n${why()}`);
    // The follow-through: the note's window and the boundary's reminder both accepted.
    const learned = accepts(project);
    assert.ok(learned.calls.length >= 1, `the companion edit was not learned as the note's accept\n${JSON.stringify(learned.entries)}\n${why()}`);
    assert.ok(learned.boundary.length >= 1, `the companion edit was not learned as the reminder's accept\n${JSON.stringify(learned.entries)}\n${why()}`);
    assert.ok(project.ledger().includes('doc-suggester: accepted src-py tests/test_mod1.py\n'), why());
  } finally {
    await project.dispose();
  }
}

export function agentSuite(driver) {
  describe(driver.name, () => {
    const shared = {};
    before(async () => {
      shared.model = await new ScriptedModel().start();
      shared.sink = await new ProxySink().start();
    });
    after(async () => {
      await shared.model?.stop();
      await shared.sink?.stop();
    });

    test('a change missing its companion: the note reaches the model, the Stop reminder arrives once, the follow-through is learned', async () => {
      await missingCompanion(driver, shared, { init: true });
    });

    test('cold start, no pack yet: the first call on the source file gets its note all the same', async () => {
      await missingCompanion(driver, shared, { init: false });
    });

    test('a change with its companion: no Stop reminder', async () => {
      const { project, requests, why } = await scriptedRun(driver, shared, (p) => {
        const steps = changes(driver, p);
        return { first: [...steps.source, ...steps.companion], after: [] };
      });
      try {
        const bodies = requests.map((r) => JSON.stringify(r.body));
        assert.ok(bodies.some((b) => b.includes(NOTE_HEADER)), `the note never reached the model\n${why()}`);
        assert.ok(bodies.every((b) => !b.includes(REMINDER)), `a Stop reminder came with nothing missing\n${why()}`);
        assert.deepEqual(project.changed(), [SOURCE, COMPANION].sort(), why());
        assert.ok(accepts(project).calls.length >= 1, `the companion edit was not learned as the note's accept\n${why()}`);
      } finally {
        await project.dispose();
      }
    });
  });
}
