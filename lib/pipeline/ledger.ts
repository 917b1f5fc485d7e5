import { countTokens } from '@/lib/chat/tokens';
import { recordLatency } from '@/lib/chat/latency';
import { recordUsage } from '@/lib/chat/usage';
import { config } from '@/lib/config';
import type { TokenUsage, Wire, WireChoice, WireReply } from '@/lib/providers/client';
import { publish } from '@/lib/providers/events';
import { observeThroughput } from '@/lib/providers/pool';
import { costOf, splitCost } from '@/lib/providers/prices';
import { type CompletionCall, promptTokens } from './call';
import type { NativeLedger } from './dialect';
import { observed } from './observe';
import type { Target } from './route';

/*
 * A completion's accounts (design §16): what its replies held so far, how it ended, its usage — the
 * server's, else counted (content, tool calls, reasoning) — and its cost at the serving provider's
 * prices, recorded once: the key's usage, cost and latency, its budgets' hold settled to that cost, and
 * what a node's provider served (published: partner statistics turn it into earnings).
 */
export type Accounts = NativeLedger & {
  /** A whole reply: absorbed and recorded. */
  absorbWhole(wire: Wire): void;
  /** A chunk of a stream. */
  absorbChunk(wire: Wire): void;
  /** Records the completion, ended so (`stop`, `aborted`, `error`…), once the reply has left. */
  record(outcome: string): void;
};

/** What a completion generated: text, reasoning, refusals, tool calls (by choice and index). */
type Generated = { content: string; reasoning: string; refusal: string; calls: Map<string, { name: string; args: string }> };

export function openLedger(call: CompletionCall, provider: Target['provider']): Accounts {
  const { request } = call;
  const state = {
    /** What was generated, to count when the server reports no usage. */
    generated: { content: '', reasoning: '', refusal: '', calls: new Map() } as Generated,
    finish: null as string | null,
    usage: null as TokenUsage | null,
    firstContentAt: null as number | null,
    /** The server's id and model name for its reply (its first object's), for the trace. */
    responseId: null as string | null,
    responseModel: null as string | null,
    /** What was generated, counted: kept until more is generated (the reply, its usage chunk and the record all ask). */
    completionTokens: null as number | null,
  };
  const noteReply = (r: WireReply) => {
    if (state.responseId === null && typeof r.id === 'string') state.responseId = r.id;
    if (state.responseModel === null && typeof r.model === 'string') state.responseModel = r.model;
  };

  const absorb = (choice: WireChoice, message: WireChoice['message']) => {
    if (message) {
      state.completionTokens = null;
      const g = state.generated;
      const before = g.content.length + g.reasoning.length + g.refusal.length + g.calls.size;
      if (typeof message.content === 'string') g.content += message.content;
      if (typeof message.reasoning_content === 'string') g.reasoning += message.reasoning_content;
      if (typeof message.refusal === 'string') g.refusal += message.refusal;
      if (Array.isArray(message.tool_calls)) {
        for (const [i, c] of message.tool_calls.entries()) {
          const key = `${choice.index ?? 0}:${c.index ?? i}`;
          const call = g.calls.get(key) ?? { name: '', args: '' };
          call.name += c.function?.name ?? '';
          call.args += c.function?.arguments ?? '';
          g.calls.set(key, call);
        }
        state.firstContentAt ??= performance.now();
      }
      if (g.content.length + g.reasoning.length + g.refusal.length + g.calls.size > before) state.firstContentAt ??= performance.now();
    }
    if (choice.finish_reason && (choice.index ?? 0) === 0) state.finish ??= choice.finish_reason;
  };

  /**
   * Usage as the model server reported it, else counted with the tokenizer. A node's tunnel is
   * believed only up to TRIAD_TUNNEL_USAGE_MARGIN over Triad's own count (plus 32 tokens), so that a
   * node cannot inflate what it earns (design §14).
   */
  const usage = (): TokenUsage => {
    if (!state.usage) return counted();
    if (!provider.tunnel) return state.usage;
    const own = counted();
    return state.usage.total_tokens <= own.total_tokens * config().TRIAD_TUNNEL_USAGE_MARGIN + 32 ? state.usage : own;
  };
  /** Usage counted with the tokenizer, over the prompt (once a call) and what was generated. */
  const counted = (): TokenUsage => {
    const prompt = promptTokens(call);
    const completion = (state.completionTokens ??= countGenerated(state.generated));
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  };
  /** The cost of `u` at the provider's prices; the last one worked out is kept (asked for by the reply, the ledger and the log alike). */
  let priced = { prompt: -1, completion: -1, cost: '0' };
  const cost = (u: TokenUsage = usage()): string => {
    if (priced.prompt !== u.prompt_tokens || priced.completion !== u.completion_tokens)
      priced = { prompt: u.prompt_tokens, completion: u.completion_tokens, cost: costOf(u, provider.prices) };
    return priced.cost;
  };
  /** The completion's accounts written: its budgets settled, usage, latency, pace, a node's earnings, its span and log record. */
  const recordNow = (outcome: string): void => {
    const u = usage();
    const spent = cost(u);
    const { db, apiKeyId, platform } = call;
    // The budgets' hold becomes what was spent (design §17).
    call.budget?.settle(spent);
    recordUsage(db, {
      apiKeyId,
      model: request.model,
      promptTokens: u.prompt_tokens,
      completionTokens: u.completion_tokens,
      cost: spent,
      stream: request.stream,
      outcome,
      platform,
    });
    const now = performance.now();
    const started = call.startedAt ?? now;
    recordLatency(db, { apiKeyId, model: request.model, kind: 'total', ms: now - started });
    if (request.stream && state.firstContentAt !== null) {
      recordLatency(db, { apiKeyId, model: request.model, kind: 'ttft', ms: state.firstContentAt - started });
    }
    // The provider's pace, for routing by throughput (design §17).
    const paced = request.stream && state.firstContentAt !== null ? state.firstContentAt : started;
    if (outcome !== 'error') observeThroughput(provider.id, u.completion_tokens, (now - paced) / 1000);
    // A node's provider earns for what it served (not for a reply that failed part-way).
    if (provider.nodeId && outcome !== 'error') void served(call, provider, u.total_tokens, spent);
    if (call.observed)
      observed(call.observed, {
        provider: provider.name,
        status: 200,
        promptTokens: u.prompt_tokens,
        completionTokens: u.completion_tokens,
        cost: spent,
        firstContentAt: state.firstContentAt,
        error: outcome === 'error' || outcome === 'aborted' ? outcome : null,
        finish: state.finish,
        responseId: state.responseId,
        responseModel: state.responseModel,
        text: () => state.generated.content,
      });
  };
  return {
    // (Methods, not getters: see lib/http/request-view.ts.)
    finish: (): string => state.finish ?? 'stop',
    finished: () => state.finish !== null,
    hasUsage: () => state.usage !== null,
    usage,
    cost: () => cost(),
    absorbWhole({ value: reply }: Wire) {
      noteReply(reply);
      for (const choice of reply.choices ?? []) absorb(choice, choice.message);
      if (reply.usage) state.usage = reportedUsage(reply.usage) ?? state.usage;
      this.record(this.finish());
    },
    absorbChunk({ value: chunk }: Wire) {
      if (state.responseId === null) noteReply(chunk);
      for (const choice of chunk.choices ?? []) absorb(choice, choice.delta);
      if (chunk.usage) state.usage = reportedUsage(chunk.usage) ?? state.usage;
    },
    absorbUsage(u: TokenUsage) {
      state.usage = reportedUsage(u) ?? state.usage;
    },
    absorbText(text: string) {
      state.completionTokens = null;
      state.generated.content += text;
      if (text) state.firstContentAt ??= performance.now();
    },
    absorbFinish(reason: string) {
      state.finish ??= reason;
    },
    record(outcome: string) {
      // Once the reply has left: a reply is written in the promise callbacks that end the call (lib/http/reply.ts), and a
      // tick's callback runs when those are done — before the server reads another request, so the next one sees these accounts.
      process.nextTick(recordNow, outcome);
    },
  };
}

const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/**
 * Usage as a model server reported it, if it is usage: whole numbers of tokens, none negative, the
 * total their sum (made so when it is not: the same object when it is, so that the server's text can
 * be passed on). Anything else (negative, fractional, huge or textual counts) is no report at all, and
 * the completion is counted instead: a server's bad numbers never become a negative cost, a budget
 * refunded or a row the database refuses.
 */
export function reportedUsage(u: TokenUsage): TokenUsage | null {
  const { prompt_tokens: prompt, completion_tokens: completion } = u;
  if (!isCount(prompt) || !isCount(completion) || !isCount(prompt + completion)) return null;
  return u.total_tokens === prompt + completion ? u : { ...u, total_tokens: prompt + completion };
}

/**
 * What a node's provider served, for its partner's statistics (lib/providers/events.ts): its tokens,
 * and what it earned — the completion's cost less the network's fee (design §17).
 */
export const served = (call: Pick<CompletionCall, 'db'>, provider: Target['provider'], tokens: number, cost: string) =>
  provider.nodeId
    ? publish(call.db, 'served', { nodeId: provider.nodeId, tokens, usd: splitCost(cost, config().TRIAD_NETWORK_FEE_PERCENT).earned })
    : Promise.resolve();

/**
 * An error reply to an accepted request (no provider could answer, too many in flight…): outcome
 * `failed`, with its latency and no tokens.
 */
export function recordFailure(call: CompletionCall) {
  const { db, apiKeyId, request, platform } = call;
  call.budget?.settle('0');
  recordUsage(db, {
    apiKeyId,
    model: request.model,
    promptTokens: 0,
    completionTokens: 0,
    cost: '0',
    stream: request.stream,
    outcome: 'failed',
    platform,
  });
  recordLatency(db, { apiKeyId, model: request.model, kind: 'total', ms: performance.now() - call.startedAt! });
}

/** The tokens of what a completion generated: text, reasoning, refusals, tool calls' names and arguments. */
function countGenerated(g: Generated): number {
  let tokens = countTokens(g.content) + countTokens(g.reasoning) + countTokens(g.refusal);
  for (const call of g.calls.values()) tokens += countTokens(call.name) + countTokens(call.args);
  return tokens;
}
