import fc from 'fast-check';

/*
 * What the fuzz tests share (e2e/api/fuzz.spec.ts, e2e/lifecycle/admin-fuzz.spec.ts): values that
 * break careless code, request bodies from well-formed to garbage, and the check every reply must pass
 * (never a 5xx; an error in its group's documented shape).
 */

/** The error shapes: the link group's `{error: {status, …}}`, OpenAI's `{error: {type, code, …}}`, Anthropic's `{type: 'error', error}`. */
export type Group = 'link' | 'chat' | 'anthropic';

export const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '-1',
    '1.5',
    '1e308',
    '9'.repeat(40),
    'NaN',
    'null',
    '[]',
    '{}',
    '%00',
    '\u0000',
    '\ud800',
    'a\udc00b',
    '\u202e',
    '😀',
    'a'.repeat(3000),
    '../../etc/passwd',
    "' or 1=1 --",
  ),
  fc.integer().map(String),
  fc.double().map(String),
);
/** Mostly `valid`, now and then something nasty. */
export const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 15, arbitrary: valid }, { weight: 1, arbitrary: nasty });
export const words = fc.string({ maxLength: 30 });

const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      type: fc.oneof(fc.constantFrom('live', 'conference'), nasty),
      expired_at: fc.oneof(fc.integer(), fc.double(), nasty),
      name: fc.option(nasty),
      passcode: fc.option(nasty),
      jwt_secret: fc.option(nasty),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      model: fc.oneof(fc.constant('triad-guide'), nasty),
      messages: fc.oneof(
        fc.array(
          fc.record({
            role: fc.oneof(fc.constantFrom('user', 'system', 'assistant'), nasty),
            content: fc.oneof(nasty, fc.array(fc.record({ type: fc.oneof(fc.constant('text'), nasty), text: nasty }), { maxLength: 3 })),
          }),
          { maxLength: 3 },
        ),
        nasty,
      ),
      max_tokens: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer(), fc.double()),
      stream: fc.oneof(fc.boolean(), nasty),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      secret: nasty,
      id: nasty,
      events: fc.oneof(
        fc.array(
          fc.record({
            partner_node_id: nasty,
            type: fc.oneof(fc.constantFrom('connect', 'disconnect', 'heartbeat'), nasty),
            at: fc.oneof(fc.integer(), fc.double(), nasty),
            event_id: nasty,
            usd_earned: nasty,
          }),
          { maxLength: 4 },
        ),
        nasty,
      ),
    },
    { requiredKeys: [] },
  ),
);
export const rawBody = fc.oneof(
  jsonish.map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '{',
    '{"a":',
    '[',
    'nul',
    '"\\ud800"',
    '{"model":"triad-guide","messages":[{"role":"user","content":"x"}],}',
    '\u0000\u0001',
    '',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constant(JSON.stringify({ deep: JSON.parse('['.repeat(500) + ']'.repeat(500)) })),
);

/** A reply as the property checks it: its status and body text. */
export type Reply = { status: number; text: string };

/**
 * Throws, saying what is wrong, unless the reply is no 5xx and any error is in its group's shape. Plain
 * checks, not Playwright's expect: each expect is recorded as a step of the test, and a run of 100 000
 * cases slowed to a crawl under them.
 */
export function checkShape(res: Reply, group: Group, what: string): void {
  const fail = (why: string) => {
    throw new Error(`${what}: ${why} (status ${res.status}, body ${res.text.slice(0, 300)})`);
  };
  if (res.status >= 500) fail('a 5xx');
  if (res.status < 400) return;
  let body: { error?: Record<string, unknown> } | null;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = null;
  }
  const error = body?.error;
  if (!error || typeof error.message !== 'string') fail('no error object with a message');
  if (group === 'chat' && (typeof error!.type !== 'string' || typeof error!.code !== 'string')) fail('not the chat error shape');
  if (group === 'anthropic' && ((body as { type?: unknown }).type !== 'error' || typeof error!.type !== 'string'))
    fail('not the Anthropic error shape');
  if (group === 'link' && error!.status !== res.status) fail('not the link error shape (status)');
}
