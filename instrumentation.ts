/**
 * Runs once when Next's server starts (never during `next build`): Triad's start-up (lib/startup.ts),
 * when Next runs on its own (`next start`, `next dev`). Under Triad's own server (lib/server/main.ts, which
 * sets TRIAD_INTERNAL_PEER_KEY before it loads Next) that server runs start-up itself, so that Next loads
 * none of Triad's code until a page asks for it.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.TRIAD_INTERNAL_PEER_KEY) return;
  const { startServer } = await import('./lib/startup');
  await startServer();
}
