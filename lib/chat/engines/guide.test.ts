import { afterEach, describe, expect, it, vi } from 'vitest';
import { guideEngine } from './guide';
import type { EngineEvent, EngineRequest } from './types';

const request = (over: Partial<EngineRequest> = {}): EngineRequest => ({
  model: 'triad-guide',
  messages: [{ role: 'user', content: 'How do aliases expire?' }],
  signal: new AbortController().signal,
  ...over,
});

async function streamed(engine: ReturnType<typeof guideEngine>, req: EngineRequest) {
  let content = '';
  let finish: string | undefined;
  for await (const e of engine.generate(req) as AsyncGenerator<EngineEvent>) {
    if (e.type === 'delta') content += e.content;
    if (e.type === 'finish') finish = e.reason;
  }
  return { content, finish };
}

afterEach(() => vi.useRealTimers());

describe('triad-guide', () => {
  it('answers a whole reply without the pause between words that paces a stream', async () => {
    vi.useFakeTimers();
    const engine = guideEngine({ delayMs: 60_000 });
    // No timer is ever advanced: a reply that waited for one would never resolve.
    const whole = await engine.complete!(request());
    expect(whole.content).toContain('not a language model');
    expect(whole.finish).toBe('stop');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a whole reply is the streamed one, with the same cut by max_tokens and stop', async () => {
    const engine = guideEngine({ delayMs: 0 });
    for (const over of [{}, { max_tokens: 7 }, { stop: ['documentation'] }]) {
      const whole = await engine.complete!(request(over));
      const stream = await streamed(engine, request(over));
      expect(whole.content).toBe(stream.content);
      expect(whole.finish).toBe(stream.finish);
    }
    expect((await engine.complete!(request({ max_tokens: 7 }))).finish).toBe('length');
    expect((await engine.complete!(request({ stop: ['documentation'] }))).content).not.toContain('documentation');
  });
});
