import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, demoServerUrl, startDemoServer, stopDemoServer } from './demo-servers';

/** A demo node's model server shows the dialect without a model: a tool call when the question asks for an offered tool, then what the tool said. */
describe('demo model server', () => {
  afterAll(() => stopDemoServer('demo-node-002'));
  const tools = [
    { type: 'function', function: { name: 'find_alias', parameters: { type: 'object', properties: { topic: { type: 'string' } } } } },
  ];
  const ask = async (body: object) => {
    const url = demoServerUrl(await startDemoServer('demo-node-002'));
    const res = await fetch(`${url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: DEMO_MODEL, ...body }) });
    return res.text();
  };

  it('calls an offered tool the question mentions ("aliases": find_alias), whole and streamed, with arguments made from its schema; then quotes the result', async () => {
    const whole = JSON.parse(await ask({ messages: [{ role: 'user', content: 'aliases' }], tools }));
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    expect(whole.choices[0].message.tool_calls[0].function).toEqual({ name: 'find_alias', arguments: '{"topic":"aliases"}' });

    const streamed = await ask({ messages: [{ role: 'user', content: 'aliases' }], tools, stream: true });
    const chunks = streamed
      .split('\n\n')
      .filter((b) => b.startsWith('data: {'))
      .map((b) => JSON.parse(b.slice(6)));
    const parts = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(parts[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'find_alias', arguments: '' } });
    expect(parts.map((p: { function: { arguments: string } }) => p.function.arguments).join('')).toBe('{"topic":"aliases"}');
    expect(chunks.find((c) => c.choices[0]?.finish_reason).choices[0].finish_reason).toBe('tool_calls');

    const answered = JSON.parse(
      await ask({
        tools,
        messages: [
          { role: 'user', content: 'aliases' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'find_alias', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'found 3' },
        ],
      }),
    );
    expect(answered.choices[0].message.content).toContain('The tool answered: found 3');
    expect(answered.choices[0].finish_reason).toBe('stop');
  });

  it('answers in text when no offered tool is asked for, as a model with no use for one; tool_choice decides otherwise', async () => {
    const reply = async (body: object) => JSON.parse(await ask(body)).choices[0];
    const tools2 = [
      ...tools,
      {
        type: 'function',
        function: {
          name: 'TaskCreate',
          parameters: { type: 'object', properties: { title: { type: 'string' }, due: { type: 'string' } }, required: ['title'] },
        },
      },
    ];
    // An agent's request: its reminder (naming a tool's word) in a tagged block before the user's own words.
    const reminder = '<system-reminder>\nThis context may or may not be relevant to your task.\n</system-reminder>';
    const agent = { tools: tools2, messages: [{ role: 'user', content: `${reminder}say hello` }] };
    const parts = [
      { type: 'text', text: reminder },
      { type: 'text', text: 'say hello' },
    ];
    expect((await reply({ ...agent, messages: [{ role: 'user', content: parts }] })).finish_reason).toBe('stop');
    const plain = await reply(agent);
    expect(plain.finish_reason).toBe('stop');
    expect(plain.message.tool_calls).toBeUndefined();
    expect(plain.message.content).toContain('a demo model server');

    expect((await reply({ ...agent, tool_choice: 'required' })).message.tool_calls[0].function.name).toBe('find_alias');
    const named = await reply({ ...agent, tool_choice: { type: 'function', function: { name: 'TaskCreate' } } });
    expect(named.message.tool_calls[0].function.name).toBe('TaskCreate');
    expect(JSON.parse(named.message.tool_calls[0].function.arguments)).toHaveProperty('title');
    const asked = await reply({ tools: tools2, messages: [{ role: 'user', content: 'Create a task: water the plants' }] });
    expect(asked.message.tool_calls[0].function).toEqual({ name: 'TaskCreate', arguments: '{"title":"Create a task: water the plants"}' });
    const declined = await reply({ tools: tools2, tool_choice: 'none', messages: [{ role: 'user', content: 'Create a task' }] });
    expect(declined.finish_reason).toBe('stop');

    // A common verb names a tool only when its name has no other word: Claude Code offers CronCreate and
    // Read; "How do I create an API key?" asks for neither (before: CronCreate, its question as a cron expression).
    const agentTools = ['CronCreate', 'Read'].map((name) => ({
      type: 'function',
      function: { name, parameters: { type: 'object', properties: { arg: { type: 'string' } } } },
    }));
    const question = await reply({ tools: agentTools, messages: [{ role: 'user', content: 'How do I create an API key?' }] });
    expect(question.finish_reason).toBe('stop');
    expect(question.message.content).toContain('apikey create');
    const cron = await reply({ tools: agentTools, messages: [{ role: 'user', content: 'Add a cron job' }] });
    expect(cron.message.tool_calls[0].function.name).toBe('CronCreate');
    const read = await reply({ tools: agentTools, messages: [{ role: 'user', content: 'Read README.md' }] });
    expect(read.message.tool_calls[0].function.name).toBe('Read');
  });

  it("quotes the guide for the user's own words, not for an agent's reminder around them", async () => {
    const content = async (text: string) =>
      JSON.parse(await ask({ messages: [{ role: 'user', content: text }] })).choices[0].message.content;
    const reminder = '<system-reminder>\nThe budgets, the ledger, the request log and the tunnels of the partners.\n</system-reminder>';
    const alone = await content('How do I make an alias?');
    expect(alone).toContain('alias');
    expect(await content(`${reminder}\nHow do I make an alias?`)).toBe(alone);
  });
});
