import { describe, expect, it } from 'vitest';
import { Channel, PIECE } from './channel';
import type { Frame } from './protocol';

/** Two channels wired back to back, with every frame recorded; `deliver` passes frames on (held until then). */
function pair(windowA: number, windowB: number) {
  const toB: Frame[] = [];
  const toA: Frame[] = [];
  const sent: Frame[] = [];
  const a = new Channel(1, (f) => (sent.push(f), toB.push(f)), windowB, windowA);
  const b = new Channel(1, (f) => toA.push(f), windowA, windowB);
  const deliver = () => {
    for (const f of toB.splice(0)) b.receive(f);
    for (const f of toA.splice(0)) a.receive(f);
  };
  return { a, b, sent, deliver };
}

describe('Channel', () => {
  it('sends no more than the credit granted, in pieces, and goes on as the reader takes what came', async () => {
    const { a, b, sent, deliver } = pair(4096, 8192);
    const text = 'x'.repeat(20_000);
    let written = false;
    const writing = a.write(text).then(() => (written = true));
    await new Promise((r) => setImmediate(r));
    const data = () => sent.filter((f) => f.t === 'data').reduce((n, f) => n + (f as { d: string }).d.length, 0);
    expect(data()).toBe(8192); // the window, not more
    expect(written).toBe(false);
    // The reader takes the text piece by piece (frames pass as they come); credit comes back and the writer finishes.
    const pump = setInterval(deliver, 1);
    let got = '';
    const reading = (async () => {
      for await (const p of b.pieces()) {
        expect(p.length).toBeLessThanOrEqual(PIECE);
        got += p;
      }
    })();
    await writing;
    a.end();
    await reading;
    clearInterval(pump);
    expect(got).toBe(text);
    expect(written).toBe(true);
  });

  it('refuses data over the credit granted, and data after the end', () => {
    const b = new Channel(7, () => {}, 1024, 1024);
    expect(() => b.receive({ t: 'data', id: 7, d: 'y'.repeat(1025) })).toThrow(/more data than the credit granted/);
    const c = new Channel(8, () => {}, 1024, 1024);
    c.receive({ t: 'end', id: 8 });
    expect(() => c.receive({ t: 'data', id: 8, d: 'z' })).toThrow(/data after the end/);
  });

  it('fails its reader and its waiting writer when the tunnel closes', async () => {
    const a = new Channel(2, () => {}, 1024, 1024);
    const writing = a.write('w'.repeat(5000));
    const reading = a.text();
    a.fail(new Error('the tunnel closed'));
    expect(await writing).toBe(false);
    await expect(reading).rejects.toThrow('the tunnel closed');
  });
});
