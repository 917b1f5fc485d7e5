import type { ApiError } from '@/lib/core/errors';
import { unsupportedParameter } from '@/lib/errors/chat';
import type { Capability, Need } from '@/lib/providers/schema';
import type { ChatRequest } from './schema';

/*
 * What a request needs of a model server beyond text (design §13), each with the field that needs it:
 * routing skips providers that declared they cannot (lib/providers/router.ts), and the built-in guide,
 * which can do none of it, refuses such requests rather than answer them as plain text.
 */
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
 * Why triad-guide cannot serve a request, or null. It reads text and writes text: tools it would have
 * to call, images, audio and files, structured output, log probabilities and several choices are
 * refused with 400 unsupported_parameter naming the field.
 */
export function guideRefusal(request: ChatRequest): ApiError | null {
  const need = needsOf(request)[0];
  if (need) return unsupportedParameter(need.param, `triad-guide cannot serve \`${need.param}\`: it ${WHY[need.capability]}.`);
  if (request.response_format?.type === 'json_object')
    return unsupportedParameter('response_format', 'triad-guide cannot serve `response_format` json_object: it answers in prose only.');
  for (const [i, m] of request.messages.entries()) {
    const j = Array.isArray(m.content) ? m.content.findIndex((p) => p.type === 'input_audio' || p.type === 'file') : -1;
    if (j >= 0) return unsupportedParameter(`messages.${i}.content.${j}`, 'triad-guide reads text only: it cannot take audio or files.');
  }
  if ((request.n ?? 1) > 1) return unsupportedParameter('n', 'triad-guide gives one answer a question: `n` must be 1.');
  return null;
}

const WHY: Record<Capability, string> = {
  tools: 'calls no tools (send tool_choice "none", or use a model that can)',
  vision: 'reads text only, not images',
  json_schema: 'answers in prose only, not in a JSON schema',
  logprobs: 'has no token probabilities to give',
};
