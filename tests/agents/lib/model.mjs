// A scripted model on 127.0.0.1 speaking the Anthropic Messages API, the OpenAI Responses API
// and Chat Completions, streamed or not. It records every request it gets.
//
// The script is stateless: each answer is chosen from the conversation the request carries
// (how many tool results it holds, whether a reminder arrived), so a CLI's retries or side
// requests cannot put it out of step. `first` runs until the model's first stop; `after`
// runs once the conversation holds the reminder (a Stop hook's reason, a re-prompt).

import http from 'node:http';
import * as sse from './sse.mjs';

/** What the boundary reminder starts with (tools/cli/src/check_change/report.rs, `at_stop`). */
export const REMINDER = '[doc-suggester] before you finish';
/** What every note of the engine starts with. */
export const NOTE_MARK = '[doc-suggester]';
export const DONE_TEXT = 'Done.';

/** The wire format a request path speaks, or null. */
function wireOf(path) {
  const bare = path.split('?')[0];
  if (bare.endsWith('/messages')) return 'anthropic';
  if (bare.endsWith('/responses')) return 'responses';
  if (bare.endsWith('/chat/completions')) return 'chat';
  return null;
}

/** The names of the tools a request offers. */
export function toolNames(body) {
  return (body?.tools ?? []).map((t) => t.name ?? t.function?.name).filter(Boolean);
}

/** How many tool results the conversation of a request holds. */
export function toolResults(wire, body) {
  if (wire === 'anthropic') {
    return (body.messages ?? [])
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === 'tool_result').length;
  }
  if (wire === 'responses') {
    return (body.input ?? []).filter((i) => /_call_output$/.test(i.type ?? '')).length;
  }
  return (body.messages ?? []).filter((m) => m.role === 'tool').length;
}

/** The step a conversation calls for under `script`. */
export function nextStep(script, wire, body) {
  const done = toolResults(wire, body);
  if (done < script.first.length) return script.first[done];
  if (!JSON.stringify(body).includes(REMINDER)) return { text: DONE_TEXT };
  const after = done - script.first.length;
  return after < script.after.length ? script.after[after] : { text: DONE_TEXT };
}

function answer(res, wire, step, body) {
  const model = body.model ?? 'scripted';
  if (body.stream) {
    const text = { anthropic: sse.anthropicStream, responses: sse.responsesStream, chat: sse.chatStream }[wire](step, model);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(text);
    return;
  }
  const json = wire === 'anthropic' ? sse.anthropicMessage(step, model) : sse.chatMessage(step, model);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(json));
}

export class ScriptedModel {
  constructor() {
    /** Every request: `{method, path, wire, body, main, step}`. */
    this.requests = [];
    /** `{first, after, tools}`: the steps, and the tool whose offer marks the agent's requests. */
    this.script = { first: [], after: [], marker: null };
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = this.server.address().port;
    this.url = `http://127.0.0.1:${this.port}`;
    return this;
  }

  stop() {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(resolve));
  }

  /** Sets the script and forgets the requests of the last run. */
  run(script) {
    this.script = script;
    this.requests = [];
  }

  /** The agent's own requests (those offering the marker tool), in order. */
  agentRequests() {
    return this.requests.filter((r) => r.main);
  }

  /** Whether the script has run to its end: the model's last answer was its stop, and the
   * reminder, when the script has steps for one, had arrived before it. */
  finished() {
    const last = this.agentRequests().at(-1);
    if (!last || last.step?.text !== DONE_TEXT) return false;
    return this.script.after.length === 0 || JSON.stringify(last.body).includes(REMINDER);
  }

  handle(req, res) {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = { unparsed: raw.slice(0, 2000) };
      }
      const path = req.url;
      const wire = req.method === 'POST' ? wireOf(path) : null;
      const record = { method: req.method, path, wire, body, main: false, step: null };
      this.requests.push(record);
      if (path.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"input_tokens":10}');
        return;
      }
      if (!wire || !body) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not scripted","type":"not_found"}}');
        return;
      }
      record.main = toolNames(body).includes(this.script.marker);
      // A side request (a title, a summary): plain text, outside the script.
      record.step = record.main ? nextStep(this.script, wire, body) : { text: 'ok' };
      answer(res, wire, record.step, body);
    });
  }
}
