import { describe, expect, it } from 'vitest';
import { countPromptTokens, countTokens } from '@/lib/chat/tokens';
import { chatDialect } from '@/lib/dialects/chat';
import type { Db } from '@/lib/db/client';
import type { ChatRequest } from '@/lib/chat/schema';
import type { CompletionCall } from './call';
import { openLedger } from './ledger';

// The ledger's usage when the server reports none, or a node's report is checked (design §14, §16): the
// tokenizer's count of the prompt and of what was generated so far, asked by the reply, its usage chunk and
// the record alike. (Its recording, the usage rows and the request log, is the e2e suites' (api/usage, money).)

const PROMPT = 'Count the words of this sentence, please.';
const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: PROMPT }], stream: true };
const call = (over: Partial<CompletionCall> = {}): CompletionCall => ({
  db: undefined as unknown as Db, // not reached: nothing is recorded here
  request,
  dialect: chatDialect(request),
  apiKeyId: 'key',
  tenant: { orgId: 'org', networkNodes: false },
  platform: null,
  signal: new AbortController().signal,
  ...over,
});
const provider = (tunnel: boolean) => ({ id: 'p', name: 'p', nodeId: null, prices: { prompt: null, completion: null }, tunnel });
const chunk = (content: string) => ({ value: { choices: [{ index: 0, delta: { content }, finish_reason: null }] } });
const prompt = countPromptTokens([{ role: 'user', content: PROMPT }]);

describe('the ledger counts what the server did not report', () => {
  it('counts the prompt and what was generated, again once more was generated', () => {
    const ledger = openLedger(call(), provider(false));
    ledger.absorbChunk(chunk('Six words'));
    expect(ledger.usage()).toEqual({
      prompt_tokens: prompt,
      completion_tokens: countTokens('Six words'),
      total_tokens: prompt + countTokens('Six words'),
    });
    ledger.absorbChunk(chunk(' in that sentence, I think.'));
    expect(ledger.usage().completion_tokens).toBe(countTokens('Six words in that sentence, I think.'));
    ledger.absorbText(' Done.'); // as a translated dialect adds text
    const text = 'Six words in that sentence, I think. Done.';
    expect(ledger.usage().completion_tokens).toBe(countTokens(text));
    expect(ledger.usage().total_tokens).toBe(prompt + countTokens(text));
  });

  it("takes the prompt's count a budget's reservation made for the call", () => {
    const ledger = openLedger(call({ promptTokens: 1234 }), provider(false));
    ledger.absorbChunk(chunk('ok'));
    expect(ledger.usage().prompt_tokens).toBe(1234);
  });

  it("believes a node's usage within the margin, else its own count of all that was generated", () => {
    const fair = openLedger(call(), provider(true));
    fair.absorbChunk(chunk('Six words'));
    fair.absorbUsage({ prompt_tokens: prompt, completion_tokens: 3, total_tokens: prompt + 3 });
    expect(fair.usage().completion_tokens).toBe(3);

    const inflated = openLedger(call(), provider(true));
    inflated.absorbChunk(chunk('Six words'));
    expect(inflated.usage().completion_tokens).toBe(countTokens('Six words')); // counted, and kept
    inflated.absorbChunk(chunk(' and more'));
    inflated.absorbUsage({ prompt_tokens: 100_000, completion_tokens: 100_000, total_tokens: 200_000 });
    expect(inflated.usage()).toEqual({
      prompt_tokens: prompt,
      completion_tokens: countTokens('Six words and more'),
      total_tokens: prompt + countTokens('Six words and more'),
    });
  });
});

describe("a server's usage that is not usage", () => {
  const counted = (text: string) => ({
    prompt_tokens: prompt,
    completion_tokens: countTokens(text),
    total_tokens: prompt + countTokens(text),
  });
  const priced = { id: 'p', name: 'p', nodeId: null, prices: { prompt: '1', completion: '2' }, tunnel: false };

  it('is counted instead: negative, fractional, huge or textual counts never become a cost', () => {
    const bad = [
      { prompt_tokens: -5, completion_tokens: 3, total_tokens: -2 },
      { prompt_tokens: 3, completion_tokens: 1e308, total_tokens: 7 }, // a total within a node's margin, a count that is not
      { prompt_tokens: 0.5, completion_tokens: 3, total_tokens: 3.5 },
      { prompt_tokens: '7', completion_tokens: 3, total_tokens: 10 },
      { prompt_tokens: null, completion_tokens: null, total_tokens: null },
    ];
    for (const usage of bad)
      for (const tunnel of [false, true]) {
        const ledger = openLedger(call(), { ...priced, tunnel });
        ledger.absorbChunk(chunk('Six words'));
        ledger.absorbChunk({ value: { choices: [], usage } } as never);
        expect(ledger.usage(), JSON.stringify(usage)).toEqual(counted('Six words'));
        expect(Number(ledger.cost())).toBeGreaterThanOrEqual(0);
        expect(Number(ledger.cost())).toBeLessThan(1);
      }
  });

  it('keeps a good report as it came, and makes its total the sum when it is not', () => {
    const good = { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7, prompt_tokens_details: { cached_tokens: 1 } };
    const ledger = openLedger(call(), priced);
    ledger.absorbChunk({ value: { choices: [], usage: good } });
    expect(ledger.usage()).toBe(good); // the same object: the server's text can be passed on
    const off = openLedger(call(), priced);
    off.absorbUsage({ prompt_tokens: 4, completion_tokens: 3, total_tokens: 99 });
    expect(off.usage()).toEqual({ prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 });
  });
});
