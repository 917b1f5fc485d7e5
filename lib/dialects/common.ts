import { type ChatRequest, type ChatRequestInput, chatRequestSchema } from '@/lib/chat/schema';
import type { ApiError } from '@/lib/core/errors';

/* What the dialects that translate onto Chat Completions (./responses, ./messages) share. */

/** The reply header naming the tools a translated request left out (hosted or server tools a Chat provider cannot run). */
const OMITTED_TOOLS_HEADER = 'Triad-Omitted-Tools';
export const omittedToolsHeaders = (omitted: string[]): Record<string, string> =>
  omitted.length ? { [OMITTED_TOOLS_HEADER]: omitted.join(', ') } : {};

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
