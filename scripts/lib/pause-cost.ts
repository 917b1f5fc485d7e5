// What this machine charges for work after a pause: the same small piece of work (a chunk's JSON.parse,
// as a model server's stream carries it) timed back to back and after `pauseMs` of quiet, in this
// process. On the VM of docs/benchmarks.md's thirty-eighth section it costs 15 to 45 times as much
// after 20 ms, asleep or spinning, in Node as in Python: whatever a server's path touches, its time after
// a model server's 20 ms grows with it. Printed by `npm run bench:chat` beside its 20 ms rows.
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './load';

const CHUNK =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}';

/** The median µs of one parse, back to back and after `pauseMs` asleep (`samples` each, the first tenth left out). */
export async function pauseCost(pauseMs = 20, samples = 200): Promise<{ warmUs: number; afterPauseUs: number }> {
  const time = async (pause: number) => {
    const us: number[] = [];
    const parsed: unknown[] = []; // kept, so that the parse is not optimized away
    for (let i = 0; i < samples; i++) {
      await (pause ? sleep(pause) : null);
      const t = performance.now();
      parsed[i] = JSON.parse(CHUNK);
      us.push((performance.now() - t) * 1000);
    }
    return percentile(us.slice(samples / 10), 50);
  };
  await time(0); // compiled and warm
  const warmUs = await time(0);
  const afterPauseUs = await time(pauseMs);
  return { warmUs, afterPauseUs };
}
