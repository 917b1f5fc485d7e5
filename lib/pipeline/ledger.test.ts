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
