import { ApiError } from '@/lib/core/errors';
import type { Reply, ReplyStream } from '@/lib/core/reply';
import { inSpan } from '@/lib/observability/context';
import { attempt } from './attempt';
import type { CompletionCall } from './call';
import { recordFailure } from './ledger';
import { observe, observedFailure } from './observe';
import { admit } from './policy';
import { route } from './route';

/*
 * One completion, whatever the API surface (design §16): call → policy (./policy.ts: what the key may
 * do) → route (./route.ts: the providers that serve the model, one after another) → attempt
 * (./attempt.ts: one model server, its reply handed to the call's dialect) → ledger (./ledger.ts: the
 * accounts, once). The dialect is handed in (lib/dialects/): the pipeline speaks Chat Completions to
 * the model servers and knows no client format. Errors before the first byte get their HTTP status; an
 * error after it ends the stream as the dialect says. A client that goes away aborts the model
 * server's request.
 */
export type { CompletionCall };

/** Who served a completion, in the X-Triad-Provider header: a provider's name, or `triad-guide`. */
export const PROVIDER_HEADER = 'X-Triad-Provider';

/** Why a model cannot be served at all: the next of the request's fallback `models` is tried. */
const UNSERVED = new Set(['model_not_found', 'no_provider_available', 'model_not_allowed', 'unsupported_parameter']);

export async function complete(call: CompletionCall): Promise<Reply> {
  call.startedAt ??= performance.now();
  call.observed = observe(call, 'chat', call.request);
  const span = call.observed.span;
  return span ? inSpan(span, () => completeObserved(call)) : completeObserved(call);
}

async function completeObserved(call: CompletionCall): Promise<Reply> {
  let release = () => {};
  try {
    const admitted = admit(call);
    release = admitted.release;
    const preferences = call.request.provider ?? call.tenant.preferences ?? null;
    // The model asked for, then its fallbacks (design §17): the first that can be served answers, under its own name.
    const models = [call.request.model, ...(call.request.models ?? []).filter((m) => m !== call.request.model)];
    let routed: { reply: Reply; provider: string } | undefined;
    for (const [i, model] of models.entries()) {
      call.request.model = model;
      try {
        routed = await route(
          { db: call.db, model, tenant: call.tenant, signal: call.signal, needs: admitted.needs, before: admitted.reserve, preferences },
          (target, done) => attempt(call, target, done),
        );
        break;
      } catch (e) {
        if (i === models.length - 1 || !(e instanceof ApiError) || !UNSERVED.has(e.code ?? '') || call.signal.aborted) {
          call.request.model = models[0]!;
          throw e;
        }
        call.budget?.settle('0'); // reserved again for the next model's providers
        call.budget = undefined;
      }
    }
    const { reply, provider } = routed!;
    if (!('stream' in reply)) release();
    else reply.stream = withEnd(reply.stream, release);
    reply.headers = { ...reply.headers, [PROVIDER_HEADER]: provider };
    return reply;
  } catch (e) {
    release();
    call.budget?.settle('0');
    // An unknown model's name is not kept in the usage (the request log keeps it: it is what the client asked).
    if (e instanceof ApiError && e.code !== 'model_not_found') recordFailure(call);
    observedFailure(call.observed!, e);
    throw e;
  }
}

/** A stream that calls `end` once when it is over (run to its end, or cancelled). */
function withEnd(stream: ReplyStream, end: () => void): ReplyStream {
  let ended = false;
  const once = () => {
    if (ended) return;
    ended = true;
    end();
  };
  return {
    run: (send) => stream.run(send).finally(once),
    cancel: (reason) => {
      stream.cancel(reason);
      once();
    },
  };
}
