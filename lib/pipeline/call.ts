import { type ChatRequest, plainMessages } from '@/lib/chat/schema';
import { countPromptTokens } from '@/lib/chat/tokens';
import type { BudgetHold } from '@/lib/budgets/budgets';
import type { Db } from '@/lib/db/client';
import type { Tenant } from '@/lib/providers/tenancy';
import type { Dialect } from './dialect';
import type { Observed } from './observe';

/** One completion as the pipeline takes it (design §16), whatever API surface it came by. */
export type CompletionCall = {
  db: Db;
  /** The request in Chat Completions, as the model servers get it (a dialect translated it, or the client sent it so). */
  request: ChatRequest;
  /** How the client is answered. */
  dialect: Dialect;
  apiKeyId: string;
  /** The key's organization: which providers may serve it (design §20). */
  tenant: Tenant;
  platform: string | null;
  signal: AbortSignal;
  /** performance.now() when the call began (its latency is measured from there). */
  startedAt?: number;
  /** Its reservation on the key's and organization's budgets, once routing made it (settled by the ledger). */
  budget?: BudgetHold;
  /** Its span, metrics and request log record (./observe.ts), opened when the pipeline takes it. */
  observed?: Observed;
  /** Its prompt's tokens, once counted (./policy.ts, ./ledger.ts: `promptTokens`). */
  promptTokens?: number;
};

/**
 * The call's prompt tokens, counted once: a budget's reservation and the ledger (a reply without usage, a
 * node's usage checked) need them, and a coding agent's prompt of 35 000–52 000 tokens takes the tokenizer 7–8 ms.
 */
export const promptTokens = (call: CompletionCall): number => (call.promptTokens ??= countPromptTokens(plainMessages(call.request)));
