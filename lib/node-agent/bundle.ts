import path from 'node:path';

/** Where the build puts the agent bundled into one file (scripts/build-if-needed.mjs), served at /downloads/triad-node.mjs. */
export const agentBundle = () => path.join(process.cwd(), '.next', 'triad', 'triad-node.mjs');
