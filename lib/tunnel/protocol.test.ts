import { describe, expect, it } from 'vitest';
import { parseFrame } from './protocol';

const hello = (over: object) => JSON.stringify({ t: 'hello', node: 'n1', models: ['m'], max_concurrency: 1, window: 65536, ...over });

describe('tunnel frames', () => {
  it('refuses a hello or models frame naming something Triad could not store, and says where', () => {
    expect(parseFrame(hello({}))).toMatchObject({ t: 'hello', node: 'n1' });
    for (const [text, why] of [
      [hello({ node: 'n\u0000' }), 'node'],
      [hello({ name: 'x\ud800' }), 'name'],
      [hello({ models: ['m', 'half\udc00'] }), 'models.1'],
      [JSON.stringify({ t: 'models', models: ['\u0000'] }), 'models.0'],
    ] as const) {
      expect(parseFrame(text)).toBe(`not a frame of the protocol (${why}: must not hold a NUL character or half a surrogate pair)`);
    }
  });

  it('gives a close reason within the 123 bytes a WebSocket allows, whatever the frame', () => {
    for (const text of [
      'x',
      '{}',
      '[]',
      JSON.stringify({ t: 'open', id: -1 }),
      hello({ window: 'x'.repeat(500) }),
      JSON.stringify({ t: 'é'.repeat(300) }),
    ]) {
      const reason = parseFrame(text);
      expect(typeof reason, text).toBe('string');
      expect(Buffer.byteLength(String(reason)), text).toBeLessThanOrEqual(123);
    }
    expect(parseFrame('x')).toBe('not a frame of the protocol: not JSON');
  });
});
