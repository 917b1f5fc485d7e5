import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, demoServerUrl, startDemoServer, stopDemoServer } from './demo-servers';

/** A demo node's model server shows the dialect without a model: a tool call when a tool is offered, then what the tool said. */
describe('demo model server', () => {
  afterAll(() => stopDemoServer('demo-node-002'));
  const tools = [
    { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { topic: { type: 'string' } } } } },
  ];
  const ask = async (body: object) => {
    const url = demoServerUrl(await startDemoServer('demo-node-002'));
    const res = await fetch(`${url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: DEMO_MODEL, ...body }) });
    return res.text();
  };

  it('calls an offered tool, whole and streamed, with arguments made from its schema; then quotes the result', async () => {
    const whole = JSON.parse(await ask({ messages: [{ role: 'user', content: 'aliases' }], tools }));
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    expect(whole.choices[0].message.tool_calls[0].function).toEqual({ name: 'lookup', arguments: '{"topic":"aliases"}' });

    const streamed = await ask({ messages: [{ role: 'user', content: 'aliases' }], tools, stream: true });
    const chunks = streamed
      .split('\n\n')
      .filter((b) => b.startsWith('data: {'))
      .map((b) => JSON.parse(b.slice(6)));
    const parts = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(parts[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'lookup', arguments: '' } });
    expect(parts.map((p: { function: { arguments: string } }) => p.function.arguments).join('')).toBe('{"topic":"aliases"}');
    expect(chunks.find((c) => c.choices[0]?.finish_reason).choices[0].finish_reason).toBe('tool_calls');

    const answered = JSON.parse(
      await ask({
        tools,
        messages: [
          { role: 'user', content: 'aliases' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'found 3' },
        ],
      }),
    );
    expect(answered.choices[0].message.content).toContain('The tool answered: found 3');
    expect(answered.choices[0].finish_reason).toBe('stop');
  });
});
