import { describe, expect, it } from 'vitest';
import { parseWith } from '@/lib/core/input';
import { needsOf } from './capabilities';
import { chatRequestSchema } from './schema';

const request = (extra: object) => parseWith(chatRequestSchema, { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });
const tool = { type: 'function', function: { name: 'f', parameters: { type: 'object' } } };

describe('what a request needs of a model server', () => {
  it('names each need with its field', () => {
    expect(needsOf(request({}))).toEqual([]);
    expect(needsOf(request({ tools: [tool] }))).toEqual([{ capability: 'tools', param: 'tools' }]);
    expect(needsOf(request({ tools: [tool], tool_choice: 'none' }))).toEqual([]);
    expect(
      needsOf(
        request({
          messages: [
            { role: 'system', content: 's' },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'x' },
                { type: 'image_url', image_url: { url: 'https://x/a.png' } },
              ],
            },
          ],
          response_format: { type: 'json_schema', json_schema: { name: 'n', schema: {} } },
          logprobs: true,
        }),
      ),
    ).toEqual([
      { capability: 'vision', param: 'messages.1.content.1' },
      { capability: 'json_schema', param: 'response_format' },
      { capability: 'logprobs', param: 'logprobs' },
    ]);
    // JSON mode needs no declared capability (the provider decides).
    expect(needsOf(request({ response_format: { type: 'json_object' } }))).toEqual([]);
  });
});
