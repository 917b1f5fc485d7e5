// How Triad's server process is started: `node <SERVER_NODE_FLAGS> .next/triad/server.js …` (built from
// lib/server/main.ts by scripts/build-if-needed.mjs). Everything that
// starts one (the cluster, the test and benchmark servers) takes its arguments and environment from here;
// package.json's `start` and `dev` scripts pass the same (a unit test keeps them alike).
import { SERVER_ENTRY } from './build-if-needed.mjs';

/**
 * --no-memory-reducer: V8's memory reducer takes a server answering one client at a time for an idle
 * one, runs full collections to shrink the heap (25–60 ms pauses for the requests in flight, measured
 * by `npm run bench:chat`) and shrinks the young generation, so that scavenges come about 5× as often.
 * --expose-gc: so that the server shrinks the heap itself when no request is in flight (lib/server/idle-gc.ts).
 * (V8 reads these when the process starts: they cannot be set by the server, nor in NODE_OPTIONS.)
 */
export const SERVER_NODE_FLAGS = ['--no-memory-reducer', '--expose-gc'];

/**
 * MALLOC_MMAP_THRESHOLD_: glibc's malloc serves a block of 128 KiB or more with its own mapping, given
 * back to the system when freed. By default that threshold grows (up to 32 MiB) each time such a block
 * is freed, so later large blocks — V8's compiler zones, the embedded database's start-up — land in the
 * malloc heap and, once freed, stay resident as holes: about 90 MB on a first start with the demo
 * (`npm run bench:memory`, docs/benchmarks.md). Ignored by other C libraries (musl, macOS).
 * (Read by the C library when the process starts: it cannot be set by the server itself.)
 */
export const SERVER_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** The server's environment: `env` with SERVER_ENV added (a value set in `env` wins). */
export const serverEnv = (env) => ({ ...SERVER_ENV, ...env });

/** The arguments of `node` that start the (built) server, with the server's own after. */
export const serverArgs = (...args) => [...SERVER_NODE_FLAGS, SERVER_ENTRY, ...args];
