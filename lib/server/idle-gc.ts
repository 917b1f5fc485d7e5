// Heap shrinking when the server is quiet. The server runs with V8's memory reducer off (see
// scripts/server-args.mjs): the reducer takes light load for idleness and pauses requests in flight with full
// collections. This does its job when it is safe: a full collection after a quiet spell (no request in
// flight and none for `quietMs`) that followed some work, start-up's included — never
// while a request is in flight (one that arrives during the collection waits for it, once after a quiet
// spell). `collect` is V8's gc() (node --expose-gc); without it this does nothing.
//
// The collection is V8's memory-reducing one (`flavor: 'last-resort'`: full collections until nothing
// more is freed, compaction, and the heap's emptied pages given back to the system). A plain gc() frees
// objects but keeps the pages it emptied: after start-up (Next and the routes loaded, migrations) the
// server held about 160 MB of empty heap pages resident that way (`npm run bench:memory`, docs/benchmarks.md).
// It takes longer (about 190 ms against 85 ms on an idle server), which is why it runs only when quiet.
//
// It also costs the next requests: it shrinks V8's young generation to its least (scavenges come ten
// times as often until it grows back) and deoptimizes much of the compiled code, so that the first one
// or two thousand completions after it are slower at the tail (p99 about 4 ms against 2 on this machine's
// bench, docs/benchmarks.md). So it runs only when there is something to give back: when the process has
// grown by `slackBytes` of resident memory since the last one (start-up's always runs). Light traffic
// between quiet spells — a health check every 15 s, a client now and then — grows the process by little
// and keeps its warm state; a spell of load grows it by tens of megabytes and is given back.
// The requests are those the server counts (lib/core/in-flight.ts).

import { requests } from '@/lib/core/in-flight';

export type IdleCollector = { soon: () => void; stop: () => void };

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** V8's memory-reducing full collection, when node runs with --expose-gc. */
export function reducingCollection(gc: Gc | undefined = globalThis.gc as Gc | undefined): (() => void) | undefined {
  return gc && (() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }));
}

export function idleCollector({
  collect = reducingCollection(),
  quietMs = 10_000,
  resident = () => process.memoryUsage.rss(),
  slackBytes = 8 * 2 ** 20,
}: {
  collect?: (() => void) | undefined;
  quietMs?: number;
  /** The process's resident memory (bytes). */
  resident?: () => number;
  /** The growth since the last collection below which a quiet spell collects nothing. */
  slackBytes?: number;
} = {}): IdleCollector {
  let seen = requests().begun;
  let worked = false;
  let soonAt = 0;
  let afterLast = -Infinity; // start-up's collection always runs
  const run = () => {
    worked = false;
    if (!collect || resident() - afterLast < slackBytes) return;
    collect();
    afterLast = resident();
  };
  const timer = setInterval(
    () => {
      const counted = requests();
      if (counted.begun !== seen) {
        seen = counted.begun;
        worked = true;
      }
      if (counted.open === 0 && worked && performance.now() - Math.max(counted.lastEnded, soonAt) >= quietMs) run();
    },
    Math.max(10, quietMs / 4),
  );
  timer.unref();
  return {
    /**
     * A collection at the next quiet spell, as after a request: start-up's garbage, once the server is ready.
     * (Not at once: its hundreds of milliseconds would hold up the first requests, health checks among them,
     * that a server just ready gets, on a machine still busy with the rest of its start.)
     */
    soon: () => {
      worked = true;
      soonAt = performance.now();
    },
    stop: () => clearInterval(timer),
  };
}
