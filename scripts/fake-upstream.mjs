// A small OpenAI-compatible model server for tests and benchmarks: a stand-in for the third party we
// cannot run here (Ollama, vLLM, OpenAI), speaking the real protocol over a real socket.
//   node scripts/fake-upstream.mjs --port 3290 [--latency-ms 20]
// Models (behaviour by id):
//   fake-echo           replies "Echo: <last user message>" in word chunks, reports usage
//   fake-no-usage       the same, without usage (Triad must count it)
//   fake-inflated       the same, reporting 1 000 times the tokens (a node inflating what it earns)
//   fake-slow           one word every 200 ms for 60 words; records whether the client went away
//   fake-midstream-fail two chunks, then the connection is cut (no [DONE])
//   fake-error-500      answers 500
//   fake-fixed          waits --latency-ms, then answers "ok" (for benchmarks)
//   fake-instant        answers "ok" at once (for throughput benchmarks)
//   fake-garbage        answers 200 with a body that is not the protocol
//   fake-429            answers 429 with Retry-After: 30
//   fake-silent         accepts the request and never answers
//   fake-agent          the dialect beyond text (design §13), as a tool-using model answers it:
//                       with `tools` (tool_choice not "none") and no tool result yet, a call of the tool
//                       tool_choice names, or the one the last user message names as [tool:NAME], or the
//                       first, its arguments made from the tool's JSON schema (a string is its
//                       property's name, a number 1, a boolean true, an enum its first value), streamed as
//                       id/name then argument fragments, finish_reason tool_calls; after tool results,
//                       "Tool said: <results>"; with response_format json_schema, a JSON object made
//                       from the schema (json_object: {"echo": <message>}); with images, "I see N
//                       image(s)"; reasoning_effort adds reasoning_content; logprobs adds log
//                       probabilities; n gives n choices; a message containing "refuse" is refused
//                       (message.refusal); a request with `x_reject` gets a 400 about it; with `stop`, the
//                       text ends before the first stop string and the finishing choice names it in
//                       `stop_reason` (null when none was met), as vLLM does. Reports usage.
//                       It writes its JSON as Python servers (vLLM) do: non-ASCII characters as \u escapes.
//   fake-agent-no-usage the same, without usage (Triad must count tool calls and reasoning itself)
//   fake-embed          POST /v1/embeddings: for each input, 8 numbers made from its text (the same text,
//                       the same vector), base64 with encoding_format base64; usage counts words as tokens
// GET /__log → {"aborted":[markers], "completed":[markers], "probes": n, "rate_limited": n, "requests": [bodies],
// "raw": [texts], "embeddings": [bodies], "traceparents": [{path, traceparent}]} (marker = the last user message; requests:
// the last 200 chat request bodies, parsed; raw: their texts; embeddings: the last 200 embeddings request bodies;
// traceparents: the last 200 POSTs' traceparent headers, null when none came).
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { scriptOptions } from './lib/cli.mjs';

const USAGE = "usage: node scripts/fake-upstream.mjs [--port 3290] [--latency-ms 20]   (its models: this file's head)";
const options = scriptOptions(USAGE, { port: { type: 'string' }, 'latency-ms': { type: 'string' } });
const port = Number(options.port ?? 3290);
const latencyMs = Number(options['latency-ms'] ?? 20);
const MODELS = [
  'fake-echo',
  'fake-no-usage',
  'fake-inflated',
  'fake-slow',
  'fake-midstream-fail',
  'fake-error-500',
  'fake-fixed',
  'fake-instant',
  'fake-garbage',
  'fake-429',
  'fake-silent',
  'fake-agent',
  'fake-agent-no-usage',
  'fake-embed',
];
const log = { aborted: [], completed: [], probes: 0, rate_limited: 0, requests: [], raw: [], embeddings: [], native: [], traceparents: [] };

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (req.method === 'GET' && url.pathname === '/v1/models') {
    log.probes++;
    // Context lengths as vLLM (max_model_len) and OpenRouter (context_length) spell them; the rest say none.
    const facts = { 'fake-echo': { max_model_len: 32768 }, 'fake-agent': { context_length: 131072 } };
    return json(res, 200, {
      object: 'list',
      data: MODELS.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake', ...facts[id] })),
    });
  }
  if (req.method === 'GET' && url.pathname === '/__log') return json(res, 200, log);
  if (req.method === 'POST') {
    log.traceparents.push({ path: url.pathname, traceparent: req.headers.traceparent ?? null });
    if (log.traceparents.length > 200) log.traceparents.shift();
  }
  if (req.method === 'POST' && url.pathname === '/v1/embeddings') return embeddings(req, res);
  if (req.method === 'POST' && (url.pathname === '/v1/responses' || url.pathname === '/v1/messages')) return native(req, res, url.pathname);
  if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') return json(res, 404, { error: { message: 'not found' } });

  let raw = '';
  for await (const chunk of req) raw += chunk;
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return json(res, 400, { error: { message: 'bad json' } });
  }
  const model = body.model;
  log.requests.push(body);
  log.raw.push(raw);
  if (log.requests.length > 200) {
    log.requests.shift();
    log.raw.shift();
  }
  if (!MODELS.includes(model)) return json(res, 404, { error: { message: `model ${model} not found` } });
  if (model === 'fake-error-500') return json(res, 500, { error: { message: 'the model crashed' } });
  if (model === 'fake-garbage') {
    res.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
    return res.end(body.stream ? 'data: <html>not json</html>\n\n' : '<html>Bad gateway</html>');
  }
  if (model === 'fake-429') {
    log.rate_limited++;
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' });
    return res.end(JSON.stringify({ error: { message: 'slow down' } }));
  }
  if (model === 'fake-silent') return; // never answers
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  const marker = typeof last?.content === 'string' ? last.content : (last?.content ?? []).map((p) => p.text ?? '').join('');
  const id = 'upstream-' + Math.random().toString(36).slice(2);
  const created = Math.floor(Date.now() / 1000);
  if (model.startsWith('fake-agent')) return agent(req, res, body, marker, id, created);

  let words;
  if (model === 'fake-fixed' || model === 'fake-instant') {
    if (model === 'fake-fixed') await sleep(latencyMs);
    words = ['ok'];
  } else if (model === 'fake-slow') {
    words = Array.from({ length: 60 }, (_, i) => `w${i} `);
  } else {
    words = `Echo: ${marker}`.match(/\S+\s*/g) ?? [''];
  }
  const inflate = model === 'fake-inflated' ? 1000 : 1;
  const usage = { prompt_tokens: 11 * inflate, completion_tokens: words.length * inflate, total_tokens: (11 + words.length) * inflate };

  if (!body.stream) {
    if (model === 'fake-midstream-fail') {
      // Half a reply, then the connection is cut.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"' + id + '","object":"chat.compl');
      await sleep(50);
      return req.socket.destroy();
    }
    return json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop' }],
      ...(model === 'fake-no-usage' ? {} : { usage }),
    });
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let gone = false;
  res.on('close', () => {
    if (!res.writableFinished) {
      gone = true;
      if (model === 'fake-slow') log.aborted.push(marker);
    }
  });
  const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  send({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
  });
  for (let i = 0; i < words.length; i++) {
    if (gone) return;
    if (model === 'fake-slow') await sleep(200);
    if (model === 'fake-midstream-fail' && i === 2) {
      await sleep(50); // let the first chunks reach the client, then cut the connection
      return req.socket.destroy();
    }
    send({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta: { content: words[i] }, finish_reason: null }],
    });
  }
  send({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  if (model !== 'fake-no-usage' && body.stream_options?.include_usage)
    send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
  res.write('data: [DONE]\n\n');
  res.end();
  if (model === 'fake-slow') log.completed.push(marker);
});

/** A value that fits a JSON schema (as a model would fill it in), for tool arguments and structured output. */
function example(schema, name = 'value') {
  if (!schema || typeof schema !== 'object') return name;
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return example(alternatives.find((s) => s.type !== 'null') ?? alternatives[0], name);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties)
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, s]) => [key, example(s, key)]));
  if (type === 'array') return [example(schema.items, name)];
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  return name;
}

const textOf = (content) => (typeof content === 'string' ? content : (content ?? []).map((p) => p.text ?? '').join(''));

/** JSON as Python's json.dumps writes it by default (ensure_ascii): every non-ASCII character as a \u escape. */
const asciiJson = (value) =>
  JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** fake-agent: tools, structured output, images, reasoning, log probabilities, several choices, refusals. */
function agent(req, res, body, marker, id, created) {
  if (body.x_reject)
    return json(res, 400, { error: { message: 'x_reject: this server does not take that field', type: 'invalid_request_error' } });
  const reportsUsage = !body.model.endsWith('-no-usage');
  const messages = body.messages ?? [];
  const results = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === 'tool'; i--) results.unshift(textOf(messages[i].content));
  const choice = body.tool_choice;
  const tools = choice === 'none' ? [] : (body.tools ?? []);
  let reply; // { content } | { calls } | { refusal }
  if (tools.length && !results.length) {
    const asked = textOf(messages.findLast((m) => m.role === 'user')?.content).match(/\[tool:([\w-]+)\]/)?.[1];
    const named = typeof choice === 'object' ? choice.function?.name : asked;
    const tool = tools.find((t) => t.function?.name === named) ?? tools[0];
    const args = JSON.stringify(example(tool.function.parameters ?? { type: 'object', properties: {} }));
    reply = {
      calls: [
        {
          id: `call_${Math.random().toString(36).slice(2, 10)}`,
          type: 'function',
          function: { name: tool.function.name, arguments: args },
        },
      ],
    };
  } else if (results.length) reply = { content: `Tool said: ${results.join('; ')}` };
  else if (body.response_format?.type === 'json_schema')
    reply = { content: JSON.stringify(example(body.response_format.json_schema?.schema)) };
  else if (body.response_format?.type === 'json_object') reply = { content: JSON.stringify({ echo: marker }) };
  else if (/refuse/i.test(marker)) reply = { refusal: "I can't help with that." };
  else {
    const images = messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image_url') : []));
    reply = {
      content: images.length
        ? `I see ${images.length} image(s): ${images.map((p) => p.image_url.url.slice(0, 22)).join(', ')}`
        : `Echo: ${marker}`,
    };
  }
  // `stop` as vLLM keeps it: the text ends before the first stop string, and the choice that finishes
  // says which string it was (`stop_reason`; null when it ended otherwise).
  const stops = body.stop === undefined ? null : [body.stop].flat().filter(Boolean);
  let stopReason = null;
  if (stops && typeof reply.content === 'string') {
    const at = stops
      .map((s) => [reply.content.indexOf(s), s])
      .filter(([i]) => i >= 0)
      .sort((a, b) => a[0] - b[0])[0];
    if (at) [reply.content, stopReason] = [reply.content.slice(0, at[0]), at[1]];
  }
  const stopped = stops ? { stop_reason: stopReason } : {};
  const reasoning = body.reasoning_effort ? `Thinking (${body.reasoning_effort}) about it.` : null;
  const finish = reply.calls ? 'tool_calls' : 'stop';
  const pieces = reply.content?.match(/\S+\s*/g) ?? [];
  const logprobsOf = (text) => (body.logprobs ? { content: [{ token: text, logprob: -0.25, bytes: null, top_logprobs: [] }] } : undefined);
  const completionTokens = pieces.length + (reply.calls ? 5 : 0) + (reasoning ? 4 : 0) + (reply.refusal ? 5 : 0);
  const usage = {
    prompt_tokens: 11,
    completion_tokens: completionTokens,
    total_tokens: 11 + completionTokens,
    ...(reasoning ? { completion_tokens_details: { reasoning_tokens: 4 } } : {}),
  };
  const n = body.n ?? 1;
  if (!body.stream) {
    const message = {
      role: 'assistant',
      content: reply.content ?? null,
      ...(reply.calls ? { tool_calls: reply.calls } : {}),
      ...(reply.refusal ? { refusal: reply.refusal } : {}),
      ...(reasoning ? { reasoning_content: reasoning } : {}),
    };
    const choices = Array.from({ length: n }, (_, index) => ({
      index,
      message,
      ...(body.logprobs ? { logprobs: logprobsOf(reply.content ?? '') } : {}),
      finish_reason: finish,
      ...stopped,
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(
      asciiJson({
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices,
        ...(reportsUsage ? { usage } : {}),
        system_fingerprint: 'fp_fake',
      }),
    );
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (choices, extra = {}) =>
    res.write(
      `data: ${asciiJson({ id, object: 'chat.completion.chunk', created, model: body.model, system_fingerprint: 'fp_fake', choices, ...extra })}\n\n`,
    );
  const each = (delta, more = {}) => send(Array.from({ length: n }, (_, index) => ({ index, delta, ...more, finish_reason: null })));
  each({ role: 'assistant', content: reply.calls || reply.refusal ? null : '' });
  if (reasoning) for (const part of reasoning.match(/\S+\s*/g)) each({ reasoning_content: part });
  for (const piece of pieces) each({ content: piece }, body.logprobs ? { logprobs: logprobsOf(piece) } : {});
  if (reply.refusal) each({ refusal: reply.refusal });
  for (const [i, call] of (reply.calls ?? []).entries()) {
    each({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    for (const fragment of call.function.arguments.match(/.{1,8}/gs) ?? [])
      each({ tool_calls: [{ index: i, function: { arguments: fragment } }] });
  }
  send(Array.from({ length: n }, (_, index) => ({ index, delta: {}, finish_reason: finish, ...stopped })));
  if (reportsUsage && body.stream_options?.include_usage) send([], { usage });
  res.end('data: [DONE]\n\n');
}

server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => console.log(`fake upstream on http://127.0.0.1:${port}/v1`));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));

/**
 * POST /v1/responses and /v1/messages, spoken natively (a server that declares them gets requests of
 * those APIs passed through): "native: " and the last user text, whole or streamed with the API's own
 * events, with usage of the server's own (input 11 / output 7; Messages 12 / 6). Logged with the
 * headers it got (`native`: path, anthropic-version, anthropic-beta, x-api-key given or not, body).
 */
async function native(req, res, path) {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const body = JSON.parse(raw);
  log.native.push({
    path,
    anthropic_version: req.headers['anthropic-version'] ?? null,
    anthropic_beta: req.headers['anthropic-beta'] ?? null,
    x_api_key: 'x-api-key' in req.headers,
    body,
  });
  if (log.native.length > 200) log.native.shift();
  const textOf = (content) => (typeof content === 'string' ? content : (content ?? []).map((p) => p.text ?? '').join(''));
  const items =
    path === '/v1/responses' ? (typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input) : body.messages;
  const said = textOf([...(items ?? [])].reverse().find((m) => m.role === 'user')?.content);
  const text = `native: ${said}`;
  const words = text.match(/\s*\S+/g) ?? [];
  const events = [];
  const event = (type, data) => events.push({ type, ...data });
  if (path === '/v1/responses') {
    const message = {
      type: 'message',
      id: 'msg_upstream',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [] }],
    };
    const response = (status, output, usage) => ({
      id: 'resp_upstream',
      object: 'response',
      created_at: 1700000000,
      status,
      model: body.model,
      output,
      usage,
    });
    const done = response('completed', [message], { input_tokens: 11, output_tokens: 7, total_tokens: 18 });
    if (!body.stream) return json(res, 200, done);
    event('response.created', { response: response('in_progress', [], null) });
    event('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } });
    event('response.content_part.added', {
      output_index: 0,
      item_id: message.id,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    for (const w of words) event('response.output_text.delta', { output_index: 0, item_id: message.id, content_index: 0, delta: w });
    event('response.output_text.done', { output_index: 0, item_id: message.id, content_index: 0, text });
    event('response.content_part.done', { output_index: 0, item_id: message.id, content_index: 0, part: message.content[0] });
    event('response.output_item.done', { output_index: 0, item: message });
    event('response.completed', { response: done });
    events.forEach((e, i) => (e.sequence_number = i));
  } else {
    const message = {
      id: 'msg_upstream',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 6 },
    };
    if (!body.stream) return json(res, 200, message);
    event('message_start', { message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 1 } } });
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event('ping', {});
    for (const w of words) event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } });
    event('content_block_stop', { index: 0 });
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 6 } });
    event('message_stop', {});
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) {
    res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    await sleep(2);
  }
  res.end();
}

/** POST /v1/embeddings: a vector per input, made from its text. */
async function embeddings(req, res) {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const body = JSON.parse(raw);
  log.embeddings.push(body);
  if (log.embeddings.length > 200) log.embeddings.shift();
  if (body.model !== 'fake-embed') return json(res, 404, { error: { message: `model ${body.model} does not embed` } });
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  let tokens = 0;
  const data = inputs.map((input, index) => {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    tokens += text.split(/\s+/).filter(Boolean).length;
    const vector = Array.from({ length: 8 }, (_, i) => {
      let h = 0;
      for (const c of text) h = (h * 31 + c.charCodeAt(0) + i) % 1000;
      return h / 1000;
    });
    const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  json(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}
