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

export type IdleCollector = { soon: () => void; begin: () => void; end: () => void; stop: () => void };

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** V8's memory-reducing full collection, when node runs with --expose-gc. */
export function reducingCollection(gc: Gc | undefined = globalThis.gc as Gc | undefined): (() => void) | undefined {
  return gc && (() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }));
}

export function idleCollector({
  collect = reducingCollection(),
  quietMs = 10_000,
}: { collect?: (() => void) | undefined; quietMs?: number } = {}): IdleCollector {
  let open = 0;
  let worked = false;
  let lastEnd = 0;
  const run = () => {
    worked = false;
    collect?.();
  };
  const timer = setInterval(
    () => {
      if (open === 0 && worked && performance.now() - lastEnd >= quietMs) run();
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
      lastEnd = performance.now();
    },
    /** A request has come in. */
    begin: () => {
      open++;
      worked = true;
    },
    /** A request has ended (answered, or its client gone). */
    end: () => {
      open--;
      lastEnd = performance.now();
    },
    stop: () => clearInterval(timer),
  };
}
