// `npm run soak -- --minutes N [--rate R]`: a server on a fresh embedded database with the demo (its
// model servers included) gets mixed traffic at a fixed rate — streamed and whole chat replies (the
// built-in guide, and triad-demo through the demo nodes' providers), statistics reads, alias
// retrieves, event ingestion — and each minute prints its resident memory, heap, event-loop delay
// p99, open handles, and the errors of the minute. At the end: memory growth after the warm-up
// minute, and the 5xx count. Pass: growth under 10 % over 30 minutes, 0 5xx. 127.0.0.1 only.
import fs from 'node:fs';
import path from 'node:path';
import { buildIfNeeded } from './build-if-needed.mjs';
import { freshDataDir, removeDataDirs, startServer } from './lib/server';
import { positiveNumber, scriptOptions } from './lib/cli.mjs';

const USAGE = `usage: npm run soak -- [--minutes N] [--rate R]
  --minutes N  how long the mixed traffic runs (30)
  --rate R     requests a second (40)
A server on a fresh embedded database with the demo, 127.0.0.1 only; a table a minute, then the verdict.`;
const options = scriptOptions(USAGE, { minutes: { type: 'string' }, rate: { type: 'string' } });
const MINUTES = positiveNumber('minutes', options.minutes, 30);
const RATE = positiveNumber('rate', options.rate, 40);

const metric = (text: string, name: string) =>
  Number(new RegExp(`^${name.replace(/[{}"=.]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

async function main() {
  buildIfNeeded();
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, { TRIAD_LOG_LEVEL: 'warn', TRIAD_GUIDE_DELAY_MS: '5', TRIAD_DEFAULT_RPM: '1000000' });
  try {
    const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as {
      org_token: string;
      api_key: string;
      partner_secret: string;
      partner_node_ids: string[];
    };
    const org = { authorization: `Bearer ${demo.org_token}` };
    const key = { authorization: `Bearer ${demo.api_key}`, 'content-type': 'application/json' };
    const aliasIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${server.url}/organization/api/v1/alias/create`, {
        method: 'POST',
        headers: { ...org, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'live', name: `soak ${i}`, expired_at: Math.floor(Date.now() / 1000) + 86_400 }),
      });
      aliasIds.push(((await r.json()) as { data: { id: string } }).data.id);
    }
    let seq = 0;
    const chat = (model: string, stream: boolean) => ({
      url: `${server.url}/api/v1/chat/completions`,
      init: {
        method: 'POST',
        headers: key,
        body: JSON.stringify({ model, stream, max_tokens: 30, messages: [{ role: 'user', content: 'How do aliases work?' }] }),
      },
    });
    const mix = [
      () => chat('triad-guide', true),
      () => chat('triad-guide', false),
      () => chat('triad-demo', true),
      () => chat('triad-demo', false),
      () => ({ url: `${server.url}/api/v1/partner/nodes?secret=${demo.partner_secret}&limit=20`, init: { headers: org } }),
      () => ({ url: `${server.url}/api/v1/partner/summary?secret=${demo.partner_secret}`, init: { headers: org } }),
      () => ({ url: `${server.url}/organization/api/v1/alias/${aliasIds[seq % aliasIds.length]}`, init: { headers: org } }),
      () => ({
        url: `${server.url}/api/v1/node/events`,
        init: {
          method: 'POST',
          headers: { ...org, 'content-type': 'application/json' },
          body: JSON.stringify({
            secret: demo.partner_secret,
            events: [
              { partner_node_id: demo.partner_node_ids[10 + (seq % 20)], type: 'heartbeat', at: Date.now(), event_id: `soak-${seq}` },
            ],
          }),
        },
      }),
    ];
    let minute = { requests: 0, errors: 0, fivexx: 0, other: 0 };
    let fivexx = 0;
    const inFlight = new Set<Promise<void>>();
    const fire = () => {
      const { url, init } = mix[seq++ % mix.length]!();
      const p = fetch(url, { ...init, signal: AbortSignal.timeout(30_000) })
        .then(async (r) => {
          await r.arrayBuffer();
          minute.requests++;
          if (r.status >= 500) {
            minute.fivexx++;
            fivexx++;
          } else if (r.status >= 400) minute.other++;
        })
        .catch(() => void minute.errors++)
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };
    const timer = setInterval(fire, 1000 / RATE);
    const rows: { minute: number; rssMb: number; heapMb: number; loopP99Ms: number; handles: number }[] = [];
    console.log(
      `soak: ${MINUTES} min at ${RATE} requests/s (${mix.length} kinds in turn), node ${process.version}, embedded PGlite with the demo\n`,
    );
    console.log('| minute | requests | 5xx | other 4xx | failed | RSS MB | heap MB | event-loop p99 ms | open handles |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    await fetch(`${server.url}/api/metrics`).then((r) => r.text()); // resets the event-loop window
    for (let m = 1; m <= MINUTES; m++) {
      await new Promise((r) => setTimeout(r, 60_000));
      const text = await (await fetch(`${server.url}/api/metrics`)).text();
      const row = {
        minute: m,
        rssMb: Math.round(metric(text, 'triad_process_resident_memory_bytes') / 2 ** 20),
        heapMb: Math.round(metric(text, 'triad_process_heap_used_bytes') / 2 ** 20),
        loopP99Ms: Math.round(metric(text, 'triad_event_loop_delay_seconds{quantile="0.99"}') * 10_000) / 10,
        handles: metric(text, 'triad_process_open_handles'),
      };
      rows.push(row);
      console.log(
        `| ${m} | ${minute.requests} | ${minute.fivexx} | ${minute.other} | ${minute.errors} | ${row.rssMb} | ${row.heapMb} | ${row.loopP99Ms} | ${row.handles} |`,
      );
      minute = { requests: 0, errors: 0, fivexx: 0, other: 0 };
    }
    clearInterval(timer);
    await Promise.all(inFlight);
    const base = rows[Math.min(1, rows.length - 1)]!; // after the warm-up minute
    const last = rows.at(-1)!;
    const growth = (100 * (last.rssMb - base.rssMb)) / base.rssMb;
    console.log(
      `\nresident memory: ${base.rssMb} MB at minute ${base.minute} → ${last.rssMb} MB at minute ${last.minute} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %; pass: under 10 %); 5xx: ${fivexx} (pass: 0)`,
    );
  } finally {
    await server.stop();
    removeDataDirs();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
