import { z } from 'zod';
import { type BudgetHold, mostCost, type Offer, reserve } from '@/lib/budgets/budgets';
import { costNumber, costOf } from '@/lib/providers/prices';
import type { ApiKeyPrincipal } from '@/lib/auth/credentials';
import { recordLatency } from '@/lib/chat/latency';
import { recordUsage } from '@/lib/chat/usage';
import { countTokens } from '@/lib/chat/tokens';
import type { Reply } from '@/lib/core/reply';
import type { Db } from '@/lib/db/client';
import { upstreamFailed } from '@/lib/errors/chat';
import { PROVIDER_HEADER } from '@/lib/pipeline/complete';
import { served } from '@/lib/pipeline/ledger';
import { route } from '@/lib/pipeline/route';
import { observe, observed, observedFailure } from '@/lib/pipeline/observe';
import { inSpan } from '@/lib/observability/context';

/*
 * POST /api/v1/embeddings (design §16): routed like a completion to the providers that serve the model
 * (tenancy, weights, failover before the first byte), sent to the provider as the client wrote it under
 * the provider's own model name, its reply passed on with the client's model name; usage recorded for
 * the key (reported, else counted), and a node-linked provider's earnings.
 */
const input = z.union([
  z.string().max(1_000_000),
  z.array(z.string().max(1_000_000)).min(1).max(2048),
  z.array(z.number().int()).min(1).max(100_000),
  z.array(z.array(z.number().int()).min(1).max(100_000)).min(1).max(2048),
]);
export const embeddingsRequestSchema = z.looseObject({
  model: z.string().min(1, 'model must not be empty').max(200),
  input,
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().min(1).max(100_000).optional(),
  user: z.string().max(256).optional(),
});
export type EmbeddingsRequest = z.output<typeof embeddingsRequestSchema>;

export const embeddingsReplySchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(
    z.looseObject({ object: z.literal('embedding'), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]) }),
  ),
  model: z.string(),
  usage: z.looseObject({ prompt_tokens: z.number().int(), total_tokens: z.number().int(), cost: z.number().min(0).optional() }),
});

const counted = (req: EmbeddingsRequest) =>
  typeof req.input === 'string'
    ? countTokens(req.input)
    : req.input.reduce<number>((n, x) => n + (typeof x === 'string' ? countTokens(x) : Array.isArray(x) ? x.length : 1), 0);

export async function createEmbeddings(call: {
  db: Db;
  request: EmbeddingsRequest;
  apiKey: ApiKeyPrincipal;
  signal: AbortSignal;
}): Promise<Reply> {
  const started = performance.now();
  const { db, request, apiKey } = call;
  const observation = observe({ db, apiKeyId: apiKey.id, tenant: apiKey, startedAt: started }, 'embeddings', request);
  const span = observation.span;
  try {
    const done = await (span ? inSpan(span, () => embed(call, started)) : embed(call, started));
    observed(observation, {
      provider: done.provider,
      status: 200,
      promptTokens: done.tokens,
      completionTokens: 0,
      cost: done.cost,
      error: null,
    });
    return done.reply;
  } catch (e) {
    observedFailure(observation, e);
    throw e;
  }
}

/** The embeddings routed and accounted: the reply, who served it, its tokens and cost. */
async function embed(call: { db: Db; request: EmbeddingsRequest; apiKey: ApiKeyPrincipal; signal: AbortSignal }, started: number) {
  const { db, request, apiKey } = call;
  let hold: BudgetHold | undefined;
  // Its budgets reserve the input's most possible cost (design §17); an embedding has no output.
  const before = apiKey.budgets.length
    ? async (offers: Offer[]) => void (hold = await reserve(db, apiKey.budgets, mostCost(counted(request), 0, offers)))
    : undefined;
  const { reply, provider } = await route(
    { db, model: request.model, tenant: apiKey, signal: call.signal, endpoint: 'embeddings', before },
    async (target, done) => {
      try {
        const { value } = await target.client.post({
          path: '/embeddings',
          body: { ...request, model: target.model },
          signal: call.signal,
        });
        if (!Array.isArray(value.data)) throw upstreamFailed(200, 'the reply is not a list of embeddings');
        const usage = value.usage as { prompt_tokens?: number } | undefined;
        const tokens = typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : counted(request);
        return { value, tokens, target };
      } finally {
        done();
      }
    },
  ).catch((e) => {
    hold?.settle('0');
    throw e;
  });
  const cost = costOf({ prompt_tokens: reply.tokens, completion_tokens: 0 }, reply.target.provider.prices);
  hold?.settle(cost);
  recordUsage(db, {
    apiKeyId: apiKey.id,
    model: request.model,
    promptTokens: reply.tokens,
    completionTokens: 0,
    cost,
    stream: false,
    outcome: 'stop',
    platform: null,
  });
  recordLatency(db, { apiKeyId: apiKey.id, model: request.model, kind: 'total', ms: performance.now() - started });
  await served(call, reply.target.provider, reply.tokens, cost);
  return {
    provider,
    tokens: reply.tokens,
    cost,
    reply: {
      status: 200,
      headers: { [PROVIDER_HEADER]: provider },
      json: {
        ...reply.value,
        model: request.model,
        usage: { prompt_tokens: reply.tokens, total_tokens: reply.tokens, cost: costNumber(cost) },
      },
    } satisfies Reply,
  };
}
