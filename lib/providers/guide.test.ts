import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ModelCall } from '@/lib/providers/client';
import { parseWith } from '@/lib/core/input';
import { chatRequestSchema } from '@/lib/chat/schema';
import { excerpt, guideAnswer, guideEngine, guideRefusal, searchDocs } from './guide';

const request = (over: Record<string, unknown> = {}): ModelCall => ({
  path: '/chat/completions',
  body: { model: 'triad-guide', messages: [{ role: 'user', content: 'How do aliases expire?' }], ...over },
  signal: new AbortController().signal,
});

async function whole(engine: ReturnType<typeof guideEngine>, call: ModelCall) {
  const { value: reply } = await engine.complete(call);
  return { content: reply.choices![0]!.message!.content, finish: reply.choices![0]!.finish_reason };
}

async function streamed(engine: ReturnType<typeof guideEngine>, call: ModelCall) {
  let content = '';
  let finish: string | null | undefined;
  let role: string | undefined;
  for await (const batch of engine.stream(call))
    for (const { value: chunk } of batch) {
      const choice = chunk.choices![0]!;
      role ??= choice.delta?.role;
      content += choice.delta?.content ?? '';
      finish = choice.finish_reason ?? finish;
    }
  return { content, finish, role };
}

/** The titles of a document's headings of levels 1–3, as written. */
const headingsOf = (file: string) => [...fs.readFileSync(file, 'utf8').matchAll(/^#{1,3} (.+)$/gm)].map((m) => m[1]!.trim());

afterEach(() => vi.useRealTimers());

describe('triad-guide', () => {
  it('answers a whole reply without the pause between words that paces a stream', async () => {
    vi.useFakeTimers();
    const engine = guideEngine({ delayMs: 60_000 });
    // No timer is ever advanced: a reply that waited for one would never resolve.
    const reply = await whole(engine, request());
    expect(reply.content).toContain('not a language model');
    expect(reply.finish).toBe('stop');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a whole reply is the streamed one, with the same cut by max_tokens and stop', async () => {
    const engine = guideEngine({ delayMs: 0 });
    for (const over of [{}, { max_tokens: 7 }, { max_completion_tokens: 7 }, { stop: ['documentation'] }, { stop: 'documentation' }]) {
      const one = await whole(engine, request(over));
      const stream = await streamed(engine, request(over));
      expect(stream.role).toBe('assistant');
      expect(one.content).toBe(stream.content);
      expect(one.finish).toBe(stream.finish);
    }
    expect((await whole(engine, request({ max_tokens: 7 }))).finish).toBe('length');
    expect((await whole(engine, request({ max_completion_tokens: 7 }))).finish).toBe('length');
    expect((await whole(engine, request({ stop: ['documentation'] }))).content).not.toContain('documentation');
  });

  it('answers from docs/*.md as well as the README', () => {
    // The README keeps a quick start and links; what these ask lives in docs/ only.
    const readmeTitles = headingsOf('README.md');
    for (const question of [
      'How many failed passcode attempts are allowed?',
      'Which Playwright projects does npm test run?',
      'How do I configure TRIAD_HEARTBEAT_TIMEOUT_S?',
    ]) {
      const best = searchDocs(question, 1)[0];
      expect(best, question).toBeDefined();
      expect(readmeTitles, question).not.toContain(best!.title);
    }
    expect(guideAnswer('What does the crash test do after kill -9?')).toMatch(/kill -9/);
  });

  it('answers its own documented example with the expiry rule (words match by their stem), in a reader’s words', () => {
    // "expire" finds "expired_at" and "Expiry"; the design notes' asides ("(implement them)") are not quoted.
    const answer = guideAnswer('How do aliases expire?');
    expect(answer).toContain('after `expired_at` an alias no longer grants');
    expect(answer).not.toMatch(/\((implement them|decided in this repository)\)/);
    // A reader's "make" is the documentation's "create".
    expect(searchDocs('How do I make an alias?', 1)[0]!.title).toBe(searchDocs('How do I create an alias?', 1)[0]!.title);
  });

  it("takes a partner's words for the documentation's: a machine that joins is a node that connects", () => {
    // Before, "The console" (a session "made with" a token) came first: no word of the question is the documents'.
    expect(searchDocs('How can I make my partner machine join?', 1)[0]!.title).toBe('Connecting a node (for partners)');
    expect(searchDocs('How do I hook up my computer?', 1)[0]!.title).toBe('Connecting a node (for partners)');
    // A slow request is read in the request log (before, "Providers" came first: its latency routing).
    expect(searchDocs('Where do I see why a request was slow?', 1)[0]!.title).toMatch(/request log/);
    // An upstream is a provider; only the question gains the words (a document's "machine" stays its own).
    expect(
      searchDocs('What happens when the upstream dies?', 2)
        .map((h) => h.title)
        .join(' '),
    ).toMatch(/Providers/);
  });

  it('answers from the documentation a reader uses, not from the record of measurements', () => {
    const benchTitles = new Set(headingsOf('docs/benchmarks.md'));
    const apiTitles = new Set(headingsOf('docs/api.md'));
    // Before, a benchmark's section ("Nodes that dial in: `npm run bench:tunnel`") answered the first of these.
    for (const question of ['How do I run it with PostgreSQL?', 'How fast is Triad?', 'How do I use Redis?', 'What does it cost?'])
      for (const hit of searchDocs(question, 5)) expect(benchTitles, `${question} → ${hit.title}`).not.toContain(hit.title);
    // A reader's "API key" is the CLI's `apikey`: the credentials' commands are quoted.
    const hits = searchDocs('How do I create an API key?', 2).map((h) => h.title);
    expect(hits).toContain('Credentials');
    expect(apiTitles.has('Credentials')).toBe(true);
    expect(guideAnswer('How do I create an API key?')).toContain('npm run admin -- apikey create');
  });

  it('puts a section named for what is asked first, and takes no line of a code block for a heading', () => {
    expect(searchDocs('How do I run the tests?', 1)[0]!.title).toBe('Tests'); // before: "Deploying"
    // …and its paragraph on what `npm test` runs ("runs" is "run": a four-letter word's plural is one too).
    expect(guideAnswer('How do I run the tests?')).toContain('`npm test` runs ESLint');
    expect(searchDocs('How do I stream?', 1)[0]!.title).toMatch(/streaming/); // before: the conformance table
    expect(searchDocs('How do I add a model server?', 1)[0]!.title).toBe('Connections to model servers');
    // A section whose title is all the question asks is first, before the many whose title only holds the word.
    for (const question of ['What is Triad?', 'Tell me about Triad', 'Please explain Triad'])
      expect(searchDocs(question, 1)[0]!.title, question).toBe('Triad'); // before: "Triad — the HTTP API"
    // docs/api.md shows a reply as shell comments (`# {"data":…`) in a code block: before, each was a section's title.
    for (const question of ['How do I export CSV?', 'usage_monthly limit_resets_at', 'What is my key limit?'])
      for (const hit of searchDocs(question, 5)) expect(hit.title, question).not.toMatch(/^[{"]/);
    // The reply's lines stay in their section, with the command that gives it.
    const section = searchDocs("What does a key's budget say it has left?", 2).find((h) => h.text.includes('/api/v1/key -H'));
    expect(section?.text).toContain('"usage_monthly":0.79,"expires_at":null');
  });

  it('answers a greeting with what it can be asked, not with a section that happens to hold the word', () => {
    for (const [greeting, reply] of [
      ['hi', 'Hello!'],
      ['Hello!', 'Hello!'],
      ['say hello', 'Hello!'],
      ['Good morning', 'Hello!'],
      ['thanks', 'You’re welcome.'],
    ]) {
      const answer = guideAnswer(greeting!);
      expect(answer, greeting).toMatch(new RegExp(`^${reply} I'm Triad's built-in guide, not a language model`));
      expect(answer, greeting).toContain('create API keys and aliases');
      expect(answer, greeting).not.toContain('###'); // no quoted section (before: "say hello" quoted the node agent's hello frame)
    }
    // A question with a greeting in it is still a question.
    expect(guideAnswer('hi, how do aliases expire?')).toContain('after `expired_at` an alias no longer grants');
  });

  it('quotes the part of a long section that answers, wherever it is in the section', () => {
    const filler = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} says nothing in particular about anything here.`);
    const text = [...filler.slice(0, 25), 'Zebras are striped; the zebra count is kept hourly.', ...filler.slice(25)].join('\n\n');
    const quoted = excerpt(text, 'How is the zebra count kept?');
    expect(quoted).toContain('Zebras are striped');
    expect(quoted.length).toBeLessThanOrEqual(900 + 10);
    expect(quoted.startsWith('…')).toBe(true); // something before it was left out, and it says so
    // No word of the question in it: the section's start.
    expect(excerpt(text, 'giraffes')).toMatch(/^Paragraph 0 says/);
    // In the documentation: the malloc setting is deep in a long section on running in production.
    expect(guideAnswer('What does MALLOC_MMAP_THRESHOLD_ do for the server?')).toContain('MALLOC_MMAP_THRESHOLD_=32768');
  });
  it('refuses what it cannot do, naming the field, as a model server would (400 before a byte), and serves plain text', async () => {
    const request = (extra: object) => parseWith(chatRequestSchema, { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });
    const tool = { type: 'function', function: { name: 'f', parameters: { type: 'object' } } };
    const engine = guideEngine({ delayMs: 0 });
    const call = { path: '/chat/completions', body: request({ tools: [tool], stream: true }), signal: new AbortController().signal };
    await expect(engine.complete(call)).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'tools' });
    await expect(engine.stream(call).next()).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'tools' });
    expect(guideRefusal(request({}))).toBeNull();
    expect(guideRefusal(request({ tools: [tool], tool_choice: 'none' }))).toBeNull();
    for (const [extra, param] of [
      [{ tools: [tool] }, 'tools'],
      [{ response_format: { type: 'json_object' } }, 'response_format'],
      [{ n: 3 }, 'n'],
      [
        { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] },
        'messages.0.content.0',
      ],
    ] as const) {
      expect(guideRefusal(request(extra)), JSON.stringify(extra)).toMatchObject({ status: 400, code: 'unsupported_parameter', param });
    }
  });
});
