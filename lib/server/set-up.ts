/*
 * The child process in which Triad's server makes a new embedded database's data directory on a first
 * start (lib/server/main.ts starts it, with its own node flags and environment): the cluster, its
 * migrations and, in demo mode, the demo's weeks of history (lib/startup.ts). It ends once the directory
 * is ready, and what that work left in memory (the malloc heap's holes, code compiled for it, the
 * database's grown WebAssembly memory) ends with it. Built into .next/triad/set-up.js, beside the server,
 * sharing its chunks; it loads only what the set-up needs.
 */
import module from 'node:module';
import { config } from '@/lib/config';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.(); // as the server does (lib/server/main.ts)
try {
  const { setUpNewDataDir } = await import('@/lib/startup');
  await setUpNewDataDir(config());
  process.exit(0);
} catch (e) {
  console.error(`triad: could not set up the data directory: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
