import { type Need, needsOf } from '@/lib/chat/capabilities';
import { takeCompletionSlot } from '@/lib/chat/concurrency';
import type { CompletionCall } from './call';

/*
 * What a completion may do before it is routed (design §16): its API key's share of the completions
 * in flight (lib/chat/concurrency.ts: 429 past it), and what the request needs of a model server
 * (tools, images, a JSON schema…), which routing honours. Key controls (design §17) land here.
 */
export type Admission = { needs: Need[]; release(): void };

export function admit(call: CompletionCall): Admission {
  const release = takeCompletionSlot(call.apiKeyId);
  return { needs: needsOf(call.request), release };
}
