// How Triad's server process is started: `node <SERVER_NODE_FLAGS> scripts/start.mjs …`. Everything that
// starts one (the cluster, the test and benchmark servers) takes its arguments from here; package.json's
// `start` script passes the same flags (a unit test keeps them alike).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * --no-memory-reducer: V8's memory reducer takes a server answering one client at a time for an idle
 * one, runs full collections to shrink the heap (25–60 ms pauses for the requests in flight, measured
 * by `npm run bench:chat`) and shrinks the young generation, so that scavenges come about 5× as often.
 * --expose-gc: so that start.mjs shrinks the heap itself when no request is in flight (idle-gc.mjs).
 * (V8 reads these when the process starts: they cannot be set from start.mjs, nor in NODE_OPTIONS.)
 */
export const SERVER_NODE_FLAGS = ['--no-memory-reducer', '--expose-gc'];

/** The arguments of `node` that start the server, with start.mjs's own after. */
export const serverArgs = (...args) => [...SERVER_NODE_FLAGS, path.join(root, 'scripts/start.mjs'), ...args];
