import { mostCost, type Offer, reserve } from '@/lib/budgets/budgets';
import { type Need, needsOf } from '@/lib/chat/capabilities';
import { takeCompletionSlot } from '@/lib/chat/concurrency';
import { config } from '@/lib/config';
import { type CompletionCall, promptTokens } from './call';

/*
 * What a completion may do before it is routed (design §16, §17): its API key's share of the
 * completions in flight (lib/chat/concurrency.ts: 429 past it); what the request needs of a model
 * server (tools, images, a JSON schema…), which routing honours; and, once routing knows which
 * providers may serve it, its most possible cost reserved on the key's and the organization's budgets
 * (lib/budgets/: 402 when it does not fit), settled by the ledger. The allow-list is routing's
 * (lib/providers/router.ts), the expiry the key's check (lib/auth/callers.ts).
 */
export type Admission = {
  needs: Need[];
  /** Reserves the call's most possible cost on `offers` (the providers that may serve it); nothing without budgets. */
  reserve?: (offers: Offer[]) => Promise<void>;
  release(): void;
};

export function admit(call: CompletionCall): Admission {
  const release = takeCompletionSlot(call.apiKeyId);
  const budgets = call.tenant.budgets;
  if (!budgets?.length) return { needs: needsOf(call.request), release };
  const { request } = call;
  return {
    needs: needsOf(call.request),
    release,
    async reserve(offers) {
      const prompt = promptTokens(call);
      let maxOutput = request.max_completion_tokens ?? request.max_tokens ?? null;
      // Output bounded by nothing a server would hold to (no max_tokens, a context length not known):
      // the request is bounded here, to what is reserved, so that the budget stays a hard cap.
      if (maxOutput === null && offers.some((o) => !o.contextLength)) maxOutput = request.max_tokens = config().TRIAD_BUDGET_OUTPUT_TOKENS;
      const amount = mostCost(prompt, maxOutput, offers);
      call.budget = await reserve(call.db, budgets, amount);
    },
  };
}
