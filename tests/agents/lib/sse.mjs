// The three streaming wire formats the agent CLIs speak, written from a scripted step: a
// tool call (`{call: {name, input}}`, `input` an object, or a string for a free-form tool)
// or a final text (`{text}`).

let serial = 0;
const nextId = (prefix) => `${prefix}_${++serial}`;

/** One Server-Sent Event; `event` may be null (chat completions name none). */
function event(name, data) {
  const head = name ? `event: ${name}\n` : '';
  return `${head}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Anthropic Messages API (`/v1/messages`, `stream: true`). */
export function anthropicStream(step, model) {
  const message = {
    id: nextId('msg'), type: 'message', role: 'assistant', model, content: [],
    stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
  };
  let out = event('message_start', { type: 'message_start', message });
  if (step.call) {
    const block = { type: 'tool_use', id: nextId('toolu'), name: step.call.name, input: {} };
    out += event('content_block_start', { type: 'content_block_start', index: 0, content_block: block });
    out += event('content_block_delta', {
      type: 'content_block_delta', index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.call.input) },
    });
  } else {
    out += event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    out += event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: step.text } });
  }
  out += event('content_block_stop', { type: 'content_block_stop', index: 0 });
  out += event('message_delta', {
    type: 'message_delta', delta: { stop_reason: step.call ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 1 },
  });
  return out + event('message_stop', { type: 'message_stop' });
}

/** Anthropic Messages API, not streamed. */
export function anthropicMessage(step, model) {
  const content = step.call
    ? [{ type: 'tool_use', id: nextId('toolu'), name: step.call.name, input: step.call.input }]
    : [{ type: 'text', text: step.text }];
  return {
    id: nextId('msg'), type: 'message', role: 'assistant', model, content,
    stop_reason: step.call ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

/** The output item of a step in the OpenAI Responses API. */
function responsesItem(step) {
  if (!step.call) {
    return {
      type: 'message', id: nextId('msg'), role: 'assistant', status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    };
  }
  const { name, input } = step.call;
  if (typeof input === 'string') {
    return { type: 'custom_tool_call', id: nextId('ctc'), call_id: nextId('call'), name, input, status: 'completed' };
  }
  return {
    type: 'function_call', id: nextId('fc'), call_id: nextId('call'), name,
    arguments: JSON.stringify(input), status: 'completed',
  };
}

/** OpenAI Responses API (`/responses`, streamed). */
export function responsesStream(step, model) {
  const id = nextId('resp');
  const created_at = Math.floor(Date.now() / 1000);
  const base = { id, object: 'response', created_at, model, output: [] };
  const item = responsesItem(step);
  let out = event('response.created', { type: 'response.created', response: { ...base, status: 'in_progress' } });
  out += event('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item });
  if (item.type === 'message') {
    out += event('response.output_text.delta', {
      type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: step.text,
    });
  }
  out += event('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
  const usage = {
    input_tokens: 1, input_tokens_details: { cached_tokens: 0 },
    output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2,
  };
  return out + event('response.completed', {
    type: 'response.completed', response: { ...base, status: 'completed', output: [item], usage },
  });
}

/** OpenAI Chat Completions (`/chat/completions`, streamed). */
export function chatStream(step, model) {
  const id = nextId('chatcmpl');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta, finish_reason) => ({
    id, object: 'chat.completion.chunk', created, model,
    choices: [{ index: 0, delta, finish_reason }],
  });
  let out;
  if (step.call) {
    const call = {
      index: 0, id: nextId('call'), type: 'function',
      function: { name: step.call.name, arguments: JSON.stringify(step.call.input) },
    };
    out = event(null, chunk({ role: 'assistant', content: null, tool_calls: [call] }, null));
    out += event(null, chunk({}, 'tool_calls'));
  } else {
    out = event(null, chunk({ role: 'assistant', content: step.text }, null));
    out += event(null, chunk({}, 'stop'));
  }
  out += event(null, {
    id, object: 'chat.completion.chunk', created, model, choices: [],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  return out + event(null, '[DONE]');
}

/** OpenAI Chat Completions, not streamed. */
export function chatMessage(step, model) {
  const message = step.call
    ? {
      role: 'assistant', content: null,
      tool_calls: [{ id: nextId('call'), type: 'function', function: { name: step.call.name, arguments: JSON.stringify(step.call.input) } }],
    }
    : { role: 'assistant', content: step.text };
  return {
    id: nextId('chatcmpl'), object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message, finish_reason: step.call ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}
