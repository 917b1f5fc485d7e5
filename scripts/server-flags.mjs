// The node flags and environment Triad's server runs with, whoever starts it: scripts/server-args.mjs
// (npm start, the cluster, the test and benchmark servers) and the packaged server's launcher
// (scripts/package-server.mjs, copied beside it by `npm run package`). No imports: the package carries it alone.
// `node scripts/server-flags.mjs` prints the node flags (npm start's script passes them on).

/**
 * --no-memory-reducer: V8's memory reducer takes a server answering one client at a time for an idle
 * one, runs full collections to shrink the heap (25–60 ms pauses for the requests in flight, measured
 * by `npm run bench:chat`) and shrinks the young generation, so that scavenges come about 5× as often.
 * --expose-gc: so that the server shrinks the heap itself when no request is in flight (lib/server/idle-gc.ts).
 * --max-semi-space-size=16: V8's young generation at most 16 MB a half (V8 13's own cap here is 64: under
 * ten clients it grew to 124 MB). What dies young between two scavenges includes the small buffers of
 * every socket read, held in the malloc heap until the scavenge frees them; with 64 MB the heap reached
 * its peak there and kept the holes for good: 164 MB resident after load against 159 (and 341 against
 * 225 at the load's end), the same throughput (`npm run bench:memory`, `bench:chat-ab`; docs/benchmarks.md).
 * --experimental-async-context-frame, on Node 22 only: AsyncLocalStorage (the request's context,
 * lib/observability/context.ts) carried in V8's continuation data instead of a hook on every promise —
 * Node 24's and 26's own way (their default, and a flag they refuse), 6–22 % more completions a second on Node 22
 * (`npm run bench:chat-ab` with the flag on one side, docs/benchmarks.md). Every Node 22 that Triad runs on
 * (22.12 and later) has it.
 * (Node reads these when the process starts: they cannot be set by the server itself, nor V8's in NODE_OPTIONS.)
 */
export const nodeFlags = (version = process.versions.node) => [
  '--no-memory-reducer',
  '--expose-gc',
  '--max-semi-space-size=16',
  ...(version.split('.')[0] === '22' ? ['--experimental-async-context-frame'] : []),
];

/** The flags for the node running this. */
export const SERVER_NODE_FLAGS = nodeFlags();

/**
 * The server's flags that `execArgv` (a process's node flags) does not give, by name: a flag given with
 * another value, or turned the other way (`--memory-reducer`), or spelt with underscores, is the user's choice.
 */
export const missingFlags = (execArgv, flags = SERVER_NODE_FLAGS) => {
  const name = (flag) =>
    flag
      .replace(/=.*/, '')
      .replaceAll('_', '-')
      .replace(/^--no-/, '--');
  const given = new Set(execArgv.map(name));
  return flags.filter((flag) => !given.has(name(flag)));
};

/**
 * MALLOC_MMAP_THRESHOLD_: glibc's malloc serves a block of this size or more (32 KiB; glibc's own start
 * is 128 KiB) with its own mapping, given back to the system when freed. By default that threshold grows
 * (up to 32 MiB) each time such a block is freed, so later large blocks — V8's compiler zones, the
 * embedded database's start-up — land in the malloc heap and, once freed, stay resident as holes: about
 * 90 MB on a first start with the demo. At 128 KiB the compiler's 32 KiB zone segments, taken by its
 * background threads while the server warms up under load, still left 30–40 MB of holes in the heap
 * and the threads' arenas after the load was over; at 32 KiB they are mapped and given back too
 * (`npm run bench:memory`, docs/benchmarks.md). Ignored by other C libraries (musl, macOS).
 * (Read by the C library when the process starts: it cannot be set by the server itself.)
 */
export const SERVER_ENV = { MALLOC_MMAP_THRESHOLD_: '32768' };

/** The server's environment: `env` with SERVER_ENV added (a value set in `env` wins). */
export const serverEnv = (env) => ({ ...SERVER_ENV, ...env });

if (process.argv[1] === import.meta.filename) console.log(SERVER_NODE_FLAGS.join(' '));
