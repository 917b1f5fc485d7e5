import { encode } from 'gpt-tokenizer';
import type { PlainMessage } from './schema';

/** Token counts with a real BPE tokenizer (o200k), for engines that do not report usage. */
export const countTokens = (text: string) => (text ? encode(text).length : 0);

/** Prompt tokens as OpenAI counts chat input: each message's content plus a few tokens of framing. */
export function countPromptTokens(messages: PlainMessage[]): number {
  return messages.reduce((sum, m) => sum + 4 + countTokens(m.content), 3);
}
