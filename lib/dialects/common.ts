import { type ChatRequest, type ChatRequestInput, chatRequestSchema } from '@/lib/chat/schema';
import type { ApiError } from '@/lib/core/errors';
import type { Ledger } from '@/lib/pipeline/dialect';
import { costNumber } from '@/lib/providers/prices';

/* What the dialects that translate onto Chat Completions, or pass through (./responses, ./messages), share. */

/**
 * The reply header naming the tools a translated request left out (hosted or server tools a Chat provider
 * cannot run), by the type the client gave them: a name that is not plain (letters, digits, `_ . -`, as
 * every real tool type is) percent-encoded, so that any text a client sends makes a valid header (a line
 * break or a character past Latin-1 would fail the reply) and the list stays one, comma-separated.
 */
const OMITTED_TOOLS_HEADER = 'Triad-Omitted-Tools';
const PLAIN = /^[\w.-]+$/;
export const omittedToolsHeaders = (omitted: string[]): Record<string, string> =>
  omitted.length ? { [OMITTED_TOOLS_HEADER]: omitted.map((t) => (PLAIN.test(t) ? t : encodeURIComponent(t))).join(', ') } : {};

/**
 * A translated request as the providers' Chat Completions schema reads it; its first problem is the
 * client's 400, made by `refuse` in the dialect's words (`at`: the field's path in the chat request, null at its root).
 */
export function asChatRequest(chat: ChatRequestInput, refuse: (at: string | null, message: string) => ApiError): ChatRequest {
  const parsed = chatRequestSchema.safeParse(chat);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw refuse(issue.path.join('.') || null, issue.message);
}

/**
 * One event of a stream passed through (`data`: its JSON), as the client gets it: `event:` and `data:`
 * lines, after `rewrite` read and changed it; a line that is not JSON goes on as it came.
 */
export function passedEvent(data: string, rewrite: (e: Record<string, unknown>) => void): string {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(data);
  } catch {
    return `data: ${data}\n\n`;
  }
  rewrite(e);
  return `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`;
}

/** An object's `usage` with what the completion cost (USD, design §17) added: `{usage}` to spread over it, or nothing when it has none. */
export function withCost(o: Record<string, unknown>, ledger: Ledger): { usage?: Record<string, unknown> } {
  const usage = o.usage;
  if (!usage || typeof usage !== 'object' || Array.isArray(usage)) return {};
  return { usage: { ...(usage as Record<string, unknown>), cost: costNumber(ledger.cost()) } };
}
