import type { ChatRequest } from './schema';

/*
 * What a request needs of a model server beyond text (design §13), each with the field that needs it:
 * routing skips providers that declared they cannot (lib/providers/router.ts), and the built-in guide,
 * which can do none of it, refuses such requests rather than answer them as plain text.
 */
export const CAPABILITIES = ['tools', 'vision', 'json_schema', 'logprobs'] as const;
export type Capability = (typeof CAPABILITIES)[number];
/** A capability a request needs, with the field that needs it. */
export type Need = { capability: Capability; param: string };

export function needsOf(request: ChatRequest): Need[] {
  const needs: Need[] = [];
  if (request.tools?.length && request.tool_choice !== 'none') needs.push({ capability: 'tools', param: 'tools' });
  const image = imageAt(request);
  if (image) needs.push({ capability: 'vision', param: image });
  if (request.response_format?.type === 'json_schema') needs.push({ capability: 'json_schema', param: 'response_format' });
  if (request.logprobs) needs.push({ capability: 'logprobs', param: 'logprobs' });
  return needs;
}

/** The path of the first image a request carries (`messages.0.content.1`), if any. */
function imageAt(request: ChatRequest): string | null {
  for (const [i, m] of request.messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    const j = m.content.findIndex((p) => p.type === 'image_url');
    if (j >= 0) return `messages.${i}.content.${j}`;
  }
  return null;
}

/**
 * The APIs beyond Chat Completions a model server may speak natively (design §16): `responses` (OpenAI's
 * Responses API), `messages` (Anthropic's Messages API). A provider that declares one gets requests of
 * that API passed through as written rather than translated.
 */
export const NATIVE_ENDPOINTS = ['responses', 'messages'] as const;
export type NativeEndpoint = (typeof NATIVE_ENDPOINTS)[number];
