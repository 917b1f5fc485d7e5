import { describe, expect, it } from 'vitest';
import { chatBody, DEFAULT_SETTINGS, pendingCalls, routingOf, samplingOf, tokenRate, type Turn } from './use-chat';

const call = (id: string, name = 'get_weather') => ({ id, name, arguments: '{"city":"Paris"}' });

describe('the playground’s requests', () => {
  it('never send an assistant tool call without its result after it', () => {
    const turns: Turn[] = [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      { role: 'tool', toolCallId: 'a', name: 'get_weather', content: 'sunny' },
      // A reply stopped while it called: its call has no result and is left out, the reply with it.
      { role: 'user', content: 'And Oslo?' },
      { role: 'assistant', content: '', toolCalls: [call('c')] },
      { role: 'user', content: 'Never mind.' },
    ];
    const { messages } = chatBody(DEFAULT_SETTINGS, turns);
    const answered = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : [])));
    const asked = messages.flatMap((m) =>
      m.role === 'assistant' && 'tool_calls' in m && m.tool_calls ? m.tool_calls.map((c) => c.id) : [],
    );
    expect(asked).toEqual(['a']);
    expect(asked.every((id) => answered.has(id))).toBe(true);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'user']);
  });

  it('know the calls waiting for results: none while streaming or after a failure', () => {
    const waiting: Turn[] = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: '', toolCalls: [call('a')] },
    ];
    expect(pendingCalls(waiting, false).map((c) => c.id)).toEqual(['a']);
    expect(pendingCalls(waiting, true)).toEqual([]);
    expect(
      pendingCalls([...waiting.slice(0, 1), { role: 'assistant', content: '', toolCalls: [call('a')], error: 'failed' }], false),
    ).toEqual([]);
  });

  it('offer every named tool with a schema, and sampling settings only when set and valid', () => {
    const settings = {
      ...DEFAULT_SETTINGS,
      tools: {
        enabled: true,
        list: [
          { name: 'get_weather', description: '', parameters: '{"type":"object"}' },
          { name: 'lookup', description: 'Look up', parameters: '{"type":"object","properties":{"q":{"type":"string"}}}' },
          { name: '', description: '', parameters: '{}' }, // no name: not offered
          { name: 'broken', description: '', parameters: '{' }, // not JSON: not offered
        ],
      },
      sampling: { topP: '0.9', stop: 'END\n###', seed: '42', frequencyPenalty: '', presencePenalty: '3' },
    };
    const body = chatBody(settings, [{ role: 'user', content: 'hi' }]);
    expect(body.tools?.map((t) => t.function.name)).toEqual(['get_weather', 'lookup']);
    expect(body).toMatchObject({ top_p: 0.9, stop: ['END', '###'], seed: 42 });
    expect(body).not.toHaveProperty('presence_penalty');
    expect(body).not.toHaveProperty('frequency_penalty');
    expect(samplingOf(settings.sampling).problems).toEqual(['presence_penalty is a number from -2 to 2']);
    expect(samplingOf({ ...settings.sampling, presencePenalty: '', seed: '1.5' }).problems).toEqual([
      'seed is a whole number from -9007199254740991 to 9007199254740991',
    ]);
  });

  it('measure the token rate from the first token, and not for a reply without text', () => {
    const usage = { prompt_tokens: 10, completion_tokens: 101, total_tokens: 111 };
    expect(tokenRate({ content: 'text', usage, ttftMs: 500, totalMs: 2500 })).toBe(50); // 100 tokens after the first, in 2 s
    expect(tokenRate({ content: '', usage, ttftMs: 40, totalMs: 41 })).toBeNull(); // a tool call alone
    expect(tokenRate({ content: 'x', usage: { ...usage, completion_tokens: 1 }, ttftMs: 40, totalMs: 41 })).toBeNull();
    expect(tokenRate({ content: 'x', usage: null, ttftMs: 40, totalMs: 400 })).toBeNull(); // stopped: no usage
  });
});

describe('routing settings', () => {
  it('become the request’s provider and models; blank ones are not sent', () => {
    expect(routingOf({ sort: '', only: '', fallbacks: '' })).toEqual({});
    expect(routingOf(undefined)).toEqual({});
    expect(routingOf({ sort: 'price', only: ' p1, p2 ,', fallbacks: 'fake-echo' })).toEqual({
      provider: { sort: 'price', only: ['p1', 'p2'] },
      models: ['fake-echo'],
    });
    const body = chatBody({ ...DEFAULT_SETTINGS, routing: { sort: 'latency', only: '', fallbacks: '' } }, []);
    expect(body.provider).toEqual({ sort: 'latency' });
    expect(body).not.toHaveProperty('models');
  });
});
