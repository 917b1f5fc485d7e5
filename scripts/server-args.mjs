// How Triad's server process is started: `node <SERVER_NODE_FLAGS> .next/triad/server.js …` (built from
// lib/server/main.ts by scripts/build-if-needed.mjs). Everything that
// starts one (the cluster, the test and benchmark servers) takes its arguments and environment from here;
// package.json's `start` and `dev` scripts pass the same (a unit test keeps them alike).
import { SERVER_ENTRY } from './build-if-needed.mjs';
import { SERVER_NODE_FLAGS } from './server-flags.mjs';

export { SERVER_ENV, SERVER_NODE_FLAGS, missingFlags, nodeFlags, serverEnv } from './server-flags.mjs';

/** The arguments of `node` that start the (built) server, with the server's own after. */
export const serverArgs = (...args) => [...SERVER_NODE_FLAGS, SERVER_ENTRY, ...args];
