// How Triad's server process is started: `node <SERVER_NODE_FLAGS> .next/triad/server.js …` (built from
// lib/server/main.ts by scripts/build-if-needed.mjs). Everything that
// starts one (the cluster, the test and benchmark servers) takes its arguments from here; package.json's
// `start` script passes the same flags (a unit test keeps them alike).
import { SERVER_ENTRY } from './build-if-needed.mjs';

/**
 * --no-memory-reducer: V8's memory reducer takes a server answering one client at a time for an idle
 * one, runs full collections to shrink the heap (25–60 ms pauses for the requests in flight, measured
 * by `npm run bench:chat`) and shrinks the young generation, so that scavenges come about 5× as often.
 * --expose-gc: so that the server shrinks the heap itself when no request is in flight (lib/server/idle-gc.ts).
 * (V8 reads these when the process starts: they cannot be set by the server, nor in NODE_OPTIONS.)
 */
export const SERVER_NODE_FLAGS = ['--no-memory-reducer', '--expose-gc'];

/** The arguments of `node` that start the (built) server, with the server's own after. */
export const serverArgs = (...args) => [...SERVER_NODE_FLAGS, SERVER_ENTRY, ...args];
