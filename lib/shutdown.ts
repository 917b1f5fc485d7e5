import { shared } from '@/lib/core/runtime';

/**
 * Shutdown hooks: the database, Redis, the usage buffer register theirs; the server (lib/server)
 * runs them on SIGINT/SIGTERM once open requests are done. One list for every copy of the code in the
 * process (lib/core/runtime.ts).
 */
type Hook = () => Promise<void> | void;
declare module '@/lib/core/runtime' {
  interface Runtime {
    shutdownHooks: Map<string, Hook>;
  }
}

const hooks = () => shared('shutdownHooks', () => new Map());

export function onShutdown(name: string, hook: Hook): void {
  hooks().set(name, hook);
}

/** Runs every hook, the latest first (later registrations depend on earlier ones: the database last). */
export async function runShutdown(): Promise<void> {
  const all = hooks();
  for (const [name, hook] of [...all].reverse()) {
    try {
      await hook();
    } catch (e) {
      console.error(`shutdown: ${name} failed: ${(e as Error).message}`);
    }
    all.delete(name);
  }
}
