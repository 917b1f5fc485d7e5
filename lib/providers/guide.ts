import fs from 'node:fs';
import path from 'node:path';
import { type Capability, needsOf } from '@/lib/chat/capabilities';
import { type ChatRequest, plainMessages } from '@/lib/chat/schema';
import { countTokens } from '@/lib/chat/tokens';
import type { ApiError } from '@/lib/core/errors';
import { unsupportedParameter } from '@/lib/errors/chat';
import type { ModelCall, ModelClient, Wire, WireMessage, WireReply } from './client';

/*
 * triad-guide: a built-in model that is always present, so the playground works with no upstream; the
 * model server of the built-in provider of kind `guide` (./pool.ts), routed like any other.
 * It is not a language model: it finds the sections of Triad's README and docs/*.md that best match the last
 * user message (BM25) and quotes them, streamed word by word. Same question, same answer.
 */
export const GUIDE_MODEL = 'triad-guide';
/** 2026-01-01, fixed so that the model list is stable. */
export const GUIDE_CREATED = new Date(1_767_225_600_000);

type Section = { title: string; text: string; length: number; titleTerms: Set<string> };
const STOPWORDS = new Set(
  'a about an and are as at be by can describe do does explain for from how i in is it its me my of on or please tell the this to what when where which who why with you your'.split(
    ' ',
  ),
);
/**
 * A word's stem, so that a question's "expire" finds "expired", "expires" and "expiry": plurals (a
 * four-letter word's too: "runs"), then one of -ing, -ed, -e, -y (words over four letters only). Crude,
 * and the same on both sides.
 */
function stem(w: string): string {
  if (w.length <= 3) return w;
  if (w.length === 4) return /[^aeiosu]s$/.test(w) ? w.slice(0, -1) : w; // "runs", "keys", "logs"; not "uses", "this"
  if (w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (/(s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is|as)$/.test(w)) w = w.slice(0, -1);
  return w.length > 4 ? w.replace(/(ing|ed|e|y)$/, '') : w;
}
/** A reader's words for what the documentation says otherwise ("How do I make an alias?": "Create alias"). */
const SAME_AS = new Map(['make', 'makes', 'making', 'made'].map((w) => [w, 'create']));
/**
 * A reader's words for what the documentation names otherwise, added to a question's own (never to the
 * documents): a partner's "machine" is a node, it "joins" by connecting, an "upstream" is a provider,
 * "slow" is latency (the request log says whose), a server that "dies" is failed over.
 */
const ALSO = new Map(
  Object.entries({
    machine: 'node',
    computer: 'node',
    gpu: 'node',
    rig: 'node',
    join: 'connect',
    hook: 'connect',
    attach: 'connect',
    enroll: 'connect',
    onboard: 'connect',
    upstream: 'provider',
    backend: 'provider',
    die: 'failover',
    dies: 'failover',
    died: 'failover',
    crash: 'failover',
    crashes: 'failover',
    dead: 'failover',
    slow: 'latency log',
    slowness: 'latency log',
    login: 'sign',
    signin: 'sign',
  }),
);
/** The words of a text, stemmed; a snake_case name (`expired_at`) also as its parts. */
const terms = (text: string) =>
  (text.toLowerCase().match(/[a-z0-9_]+/g) ?? [])
    .flatMap((t) => (t.includes('_') ? [t, ...t.split('_')] : [t]))
    .filter((t) => !STOPWORDS.has(t) && t.length > 1)
    .map((t) => stem(SAME_AS.get(t) ?? t));

/**
 * A question's terms, and its neighbouring words run together where the documentation writes them so
 * (a reader's "API key" is the CLI's `apikey`, "partner secret" stays two words: no such term).
 */
function questionTerms(question: string, postings: Map<string, number[]>): Set<string> {
  const found = new Set(terms(question));
  const words = question.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  for (const w of words) for (const t of terms(ALSO.get(w) ?? '')) found.add(t);
  for (let i = 1; i < words.length; i++) {
    const joined = stem(words[i - 1]! + words[i]!);
    if (postings.has(joined)) found.add(joined);
  }
  return found;
}

/** What a greeting is made of (after the stop words): a question of these words only is answered with what the guide can do. */
const GREETING = new Set(terms('hi hello hey hiya howdy greetings say good morning afternoon evening thanks thank cheers there yo'));
const THANKS = new Set(terms('thanks thank cheers'));

/**
 * A string of its own. V8 keeps a part cut from a longer string (by split, match, slice) as a view of that
 * string, which then lives as long as the part: the index keeps its titles, texts and terms as copies,
 * not the documents and lower-cased sections they were cut from (1.3 MB of the index's 3 MB were those).
 */
const own = (s: string) => Buffer.from(s, 'utf8').toString('utf8');

/** The sections, and for each term its postings: the sections it is in and how often, as pairs. */
let index: { sections: Section[]; avgLength: number; postings: Map<string, number[]> } | undefined;

function loadIndex() {
  if (index) return index;
  const sections: Section[] = [];
  const postings = new Map<string, number[]>();
  for (const text of documents()) {
    for (const block of blocks(text)) {
      const [heading, ...rest] = block.split('\n');
      const body = rest.join('\n').trim();
      if (!body) continue;
      // The title as a reader names it: without the design notes' own asides.
      const title = heading!
        .replace(/^#+\s*/, '')
        .replace(/\s*\((decided in this repository|implement them)\)/g, '')
        .trim();
      const counts = new Map<string, number>();
      const words = terms(`${title} ${title} ${body}`);
      for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
      const at =
        sections.push({ title: own(title), text: own(body), length: words.length, titleTerms: new Set(terms(title).map(own)) }) - 1;
      for (const [t, f] of counts) {
        const list = postings.get(t);
        if (list) list.push(at, f);
        else postings.set(own(t), [at, f]);
      }
    }
  }
  index = { sections, avgLength: sections.reduce((a, s) => a + s.length, 0) / Math.max(1, sections.length), postings };
  return index;
}

/**
 * A Markdown text cut before each heading of levels 1–3; a line in a fenced code block is never one (a
 * shell comment, `# {"data":…}`, made a section of its own).
 */
function blocks(text: string): string[] {
  const out: string[] = [];
  let lines: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && /^#{1,3} /.test(line) && lines.length) {
      out.push(lines.join('\n'));
      lines = [];
    }
    lines.push(line);
  }
  if (lines.length) out.push(lines.join('\n'));
  return out;
}

/**
 * docs/benchmarks.md is the record of measurements (half the documentation's words, each run's numbers
 * and probes): quoted, it answered "How do I run it with PostgreSQL?" with a benchmark's figures. The
 * README and docs/operations.md say what a reader needs of it.
 */
const NOT_QUOTED = new Set(['benchmarks.md']);

/**
 * The texts the guide answers from: README.md and docs/*.md beside the server (in that order), but
 * NOT_QUOTED. The paths are spelt out under process.cwd() so that the build traces these files only (a
 * path built from a variable makes Next trace the whole project into the server's output).
 */
function documents(): string[] {
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return null;
    }
  };
  let docs: string[] = [];
  try {
    docs = fs
      .readdirSync(path.join(process.cwd(), 'docs'))
      .filter((f) => f.endsWith('.md') && !NOT_QUOTED.has(f))
      .sort()
      .map((f) => path.join(process.cwd(), 'docs', f));
  } catch {
    // no docs folder next to the server
  }
  const texts = [path.join(process.cwd(), 'README.md'), ...docs].map(read).filter((t): t is string => t !== null);
  return texts.length ? texts : ['# Triad\nThe documentation (README.md, docs/) was not found next to the server.'];
}

/**
 * What a question's word in a section's title adds, times the word's weight (idf), beyond its count in the
 * section: a section named for what is asked comes before one that mentions it often ("How do I run the
 * tests?": "Tests", not "Deploying"; "How do I stream?": the streaming chunk, not the conformance table).
 */
const TITLE_BOOST = 1.5;

/** A section whose title is the question's words, all of them and no other ("What is Triad?": "Triad"). */
const namedBy = (s: Section, asked: Set<string>) => s.titleTerms.size === asked.size && [...asked].every((t) => s.titleTerms.has(t));

/**
 * The sections best matching a question, best first (BM25, k1 = 1.2, b = 0.75, and TITLE_BOOST); a section
 * named by the question (namedBy) before any other: "What is Triad?" is the README's opening, not the
 * first of the many sections whose title holds the word.
 */
export function searchDocs(question: string, limit = 2): { title: string; text: string; score: number }[] {
  const { sections, avgLength, postings } = loadIndex();
  const n = sections.length;
  const scores = new Float64Array(n);
  const asked = new Set(terms(question));
  for (const t of questionTerms(question, postings)) {
    const list = postings.get(t);
    if (!list) continue;
    const df = list.length / 2;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (let i = 0; i < list.length; i += 2) {
      const [at, f] = [list[i]!, list[i + 1]!];
      scores[at] = scores[at]! + (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * sections[at]!.length) / avgLength));
      if (sections[at]!.titleTerms.has(t)) scores[at] = scores[at]! + idf * TITLE_BOOST;
    }
  }
  return sections
    .map((s, i) => ({ title: s.title, text: s.text, score: scores[i]!, named: asked.size > 0 && namedBy(s, asked) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => Number(b.named) - Number(a.named) || b.score - a.score)
    .slice(0, limit)
    .map(({ title, text, score }) => ({ title, text, score }));
}

/** `text` cut to at most `max` characters at a line's end (`…` says where). */
const cut = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, text.lastIndexOf('\n', max) > max / 4 ? text.lastIndexOf('\n', max) : max)}\n…`;

/** A section's paragraphs and list items with their words, worked out once per section (the documents are read once). */
const sectionParts = new Map<string, { part: string; at: number; words: Set<string> }[]>();
function partsOf(text: string) {
  let parts = sectionParts.get(text);
  if (!parts) {
    parts = text.split(/\n{2,}|\n(?=[-*] |\d+\. )/).map((part, at) => ({ part, at, words: new Set(terms(part)) }));
    if (sectionParts.size < 10_000) sectionParts.set(text, parts);
  }
  return parts;
}

/**
 * What the guide quotes of a section: all of it when short; else, within `max` characters, its
 * paragraphs and list items that share the most words with the question, in the section's order
 * (`…` where something was left out). A section's best part for a question may be far from its start.
 */
export function excerpt(text: string, question: string, max = 900): string {
  if (text.length <= max) return text;
  const asked = new Set(terms(question));
  const parts = partsOf(text).map(({ part, at, words }) => {
    let score = 0;
    for (const t of asked) if (words.has(t)) score++;
    return { part, at, score };
  });
  const chosen: typeof parts = [];
  let used = 0;
  for (const p of [...parts].sort((a, b) => b.score - a.score || a.at - b.at)) {
    if (p.score === 0 && chosen.length) break;
    // The best part alone longer than the whole allowance: that part, cut.
    if (!chosen.length && p.part.length > max) return `${p.at > 0 ? '…\n\n' : ''}${cut(p.part, max)}`;
    if (used + p.part.length + 2 > max) continue;
    chosen.push(p);
    used += p.part.length + 2;
  }
  chosen.sort((a, b) => a.at - b.at);
  const out: string[] = chosen[0]!.at > 0 ? ['…'] : [];
  chosen.forEach((p, i) => {
    if (i > 0 && p.at !== chosen[i - 1]!.at + 1) out.push('…');
    out.push(p.part);
  });
  if (chosen.at(-1)!.at < parts.length - 1) out.push('…');
  return out.join('\n\n');
}

const INTRO =
  "I'm Triad's built-in guide, not a language model: I answer by quoting the parts of Triad's documentation that best match your question.";
const ASK =
  'Ask me how to do something with Triad: connect a client (the openai SDK, the Vercel AI SDK, the Anthropic SDK, Claude Code, Codex), create API keys and aliases, connect a partner’s node, set budgets and prices, or run it in production.';

export function guideAnswer(question: string): string {
  const asked = terms(question);
  if (!asked.length) return `${INTRO}\n\n${ASK}`;
  if (asked.every((t) => GREETING.has(t))) {
    const hello = asked.some((t) => THANKS.has(t)) ? 'You’re welcome.' : 'Hello!';
    return `${hello} ${INTRO}\n\n${ASK} For a conversation, connect a real model with TRIAD_UPSTREAM_URL.`;
  }
  const hits = searchDocs(question);
  if (!hits.length) {
    return `${INTRO}\n\nI found nothing about that in the documentation. Try asking about configuration, credentials, aliases, statistics, rate limits or the chat API — or connect a real model with TRIAD_UPSTREAM_URL.`;
  }
  return [INTRO, ...hits.map((h) => `### ${h.title}\n\n${excerpt(h.text, question)}`)].join('\n\n');
}

/** The reply to a request, in the pieces a stream sends (a word with the space before it), cut by `stop` and `max_tokens`. */
function guideReply(req: ChatRequest): { pieces: string[]; reason: 'stop' | 'length' } {
  const question = [...plainMessages(req)].reverse().find((m) => m.role === 'user')?.content ?? '';
  let answer = guideAnswer(question);
  for (const stop of typeof req.stop === 'string' ? [req.stop] : (req.stop ?? [])) {
    const at = answer.indexOf(stop);
    if (at >= 0) answer = answer.slice(0, at);
  }
  const pieces = answer.match(/\s*\S+/g) ?? [];
  const max = req.max_completion_tokens ?? req.max_tokens;
  if (max === undefined) return { pieces, reason: 'stop' };
  let used = 0;
  for (let i = 0; i < pieces.length; i++) {
    used += countTokens(pieces[i]!);
    if (used > max) return { pieces: pieces.slice(0, i), reason: 'length' };
  }
  return { pieces, reason: 'stop' };
}

/**
 * The guide as a model server: the reply objects an OpenAI-compatible server writes (no usage: the
 * completion counts it). `delayMs` paces a stream (a pause before each word); a whole reply is
 * answered at once. It reads the request's text only: requests it cannot serve (tools it would have to
 * call, images, structured output) it refuses, as a server would, with 400 naming the field.
 */
export function guideEngine({ delayMs }: { delayMs: number }): ModelClient {
  const created = () => Math.floor(Date.now() / 1000);
  const served = (body: Record<string, unknown>) => {
    const refused = guideRefusal(body as ChatRequest);
    if (refused) throw refused;
    return guideReply(body as ChatRequest);
  };
  return {
    async post({ path }: ModelCall): Promise<never> {
      throw unsupportedParameter('model', `triad-guide answers chat completions only, not ${path.slice(1)}.`);
    },
    async *relay({ path }: ModelCall): AsyncGenerator<string[]> {
      throw unsupportedParameter('model', `triad-guide answers chat completions only, not ${path.slice(1)}.`);
    },
    async complete({ body }: ModelCall): Promise<Wire> {
      const { pieces, reason } = served(body);
      const value: WireReply = {
        object: 'chat.completion',
        created: created(),
        model: GUIDE_MODEL,
        choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: reason }],
      };
      return { value };
    },
    async *stream({ body, signal }: ModelCall): AsyncGenerator<Wire[]> {
      const { pieces, reason } = served(body);
      const at = created();
      const chunk = (delta: WireMessage, finish: string | null = null): Wire => ({
        value: { object: 'chat.completion.chunk', created: at, model: GUIDE_MODEL, choices: [{ index: 0, delta, finish_reason: finish }] },
      });
      const opening = chunk({ role: 'assistant', content: '' });
      // At once, the whole reply is one batch; paced, a piece at a time.
      if (delayMs <= 0) return yield [opening, ...pieces.map((piece) => chunk({ content: piece })), chunk({}, reason)];
      yield [opening];
      for (const piece of pieces) {
        if (signal.aborted) return;
        await sleep(delayMs, signal);
        yield [chunk({ content: piece })];
      }
      yield [chunk({}, reason)];
    },
  };
}

/** Waits `ms`, or less if `signal` aborts; leaves no listener behind either way. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * Why triad-guide cannot serve a request, or null. It reads text and writes text: tools it would have
 * to call, images, audio and files, structured output, log probabilities and several choices are
 * refused with 400 unsupported_parameter naming the field.
 */
export function guideRefusal(request: ChatRequest): ApiError | null {
  const need = needsOf(request)[0];
  if (need) return unsupportedParameter(need.param, `triad-guide cannot serve \`${need.param}\`: it ${WHY[need.capability]}.`);
  if (request.response_format?.type === 'json_object')
    return unsupportedParameter('response_format', 'triad-guide cannot serve `response_format` json_object: it answers in prose only.');
  for (const [i, m] of request.messages.entries()) {
    const j = Array.isArray(m.content) ? m.content.findIndex((p) => p.type === 'input_audio' || p.type === 'file') : -1;
    if (j >= 0) return unsupportedParameter(`messages.${i}.content.${j}`, 'triad-guide reads text only: it cannot take audio or files.');
  }
  if ((request.n ?? 1) > 1) return unsupportedParameter('n', 'triad-guide gives one answer a question: `n` must be 1.');
  return null;
}

const WHY: Record<Capability, string> = {
  tools: 'calls no tools (send tool_choice "none", or use a model that can)',
  vision: 'reads text only, not images',
  json_schema: 'answers in prose only, not in a JSON schema',
  logprobs: 'has no token probabilities to give',
};
