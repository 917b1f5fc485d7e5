/** Runs once when the server starts (never during `next build`). */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startServer } = await import('./lib/startup');
  await startServer();
}
