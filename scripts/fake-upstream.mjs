// A small OpenAI-compatible model server for tests and benchmarks: a stand-in for the third party we
// cannot run here (Ollama, vLLM, OpenAI), speaking the real protocol over a real socket.
//   node scripts/fake-upstream.mjs --port 3290 [--latency-ms 20]
// Models (behaviour by id):
//   fake-echo           replies "Echo: <last user message>" in word chunks, reports usage
//   fake-no-usage       the same, without usage (Triad must count it)
//   fake-slow           one word every 200 ms for 60 words; records whether the client went away
//   fake-midstream-fail two chunks, then the connection is cut (no [DONE])
//   fake-error-500      answers 500
//   fake-fixed          waits --latency-ms, then answers "ok" (for benchmarks)
//   fake-instant        answers "ok" at once (for throughput benchmarks)
//   fake-garbage        answers 200 with a body that is not the protocol
//   fake-429            answers 429 with Retry-After: 30
//   fake-silent         accepts the request and never answers
// GET /__log → {"aborted":[markers], "completed":[markers], "probes": n, "rate_limited": n} (marker = the last user message).
import http from 'node:http';

const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1] || 3290);
const latencyMs = args.includes('--latency-ms') ? Number(args[args.indexOf('--latency-ms') + 1]) : 20;
const MODELS = [
  'fake-echo',
  'fake-no-usage',
  'fake-slow',
  'fake-midstream-fail',
  'fake-error-500',
  'fake-fixed',
  'fake-instant',
  'fake-garbage',
  'fake-429',
  'fake-silent',
];
const log = { aborted: [], completed: [], probes: 0, rate_limited: 0 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (req.method === 'GET' && url.pathname === '/v1/models') {
    log.probes++;
    return json(res, 200, { object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' })) });
  }
  if (req.method === 'GET' && url.pathname === '/__log') return json(res, 200, log);
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
  const marker = typeof last?.content === 'string' ? last.content : (last?.content ?? []).map((p) => p.text).join('');
  const id = 'upstream-' + Math.random().toString(36).slice(2);
  const created = Math.floor(Date.now() / 1000);

  let words;
  if (model === 'fake-fixed' || model === 'fake-instant') {
    if (model === 'fake-fixed') await sleep(latencyMs);
    words = ['ok'];
  } else if (model === 'fake-slow') {
    words = Array.from({ length: 60 }, (_, i) => `w${i} `);
  } else {
    words = `Echo: ${marker}`.match(/\S+\s*/g) ?? [''];
  }
  const usage = { prompt_tokens: 11, completion_tokens: words.length, total_tokens: 11 + words.length };

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

server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => console.log(`fake upstream on http://127.0.0.1:${port}/v1`));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
