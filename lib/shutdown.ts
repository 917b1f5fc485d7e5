/**
 * Shutdown hooks shared between the Next bundle and the process that hosts it
 * (scripts/start.mjs calls `globalThis[Symbol.for('triad.shutdown')]` on SIGINT/SIGTERM).
 * Kept on globalThis because both sides load their own copy of the code.
 */
type Hook = () => Promise<void> | void;
const KEY = Symbol.for('triad.shutdown');
type Registry = { hooks: Map<string, Hook>; run: () => Promise<void> };

function registry(): Registry {
  const g = globalThis as { [KEY]?: Registry };
  if (!g[KEY]) {
    const hooks = new Map<string, Hook>();
    g[KEY] = {
      hooks,
      run: async () => {
        // Later registrations depend on earlier ones (the database last): run in reverse.
        for (const [name, hook] of [...hooks].reverse()) {
          try {
            await hook();
          } catch (e) {
            console.error(`shutdown: ${name} failed: ${(e as Error).message}`);
          }
          hooks.delete(name);
        }
      },
    };
  }
  return g[KEY];
}

export function onShutdown(name: string, hook: Hook): void {
  registry().hooks.set(name, hook);
}

export function runShutdown(): Promise<void> {
  return registry().run();
}
