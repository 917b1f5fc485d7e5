import { shared } from './runtime';

/*
 * How far the server's start-up has come (lib/startup.ts sets it): what `/api/health` says, at once,
 * until the server is ready (lib/server/main.ts answers it then, before Next is asked).
 */
export type Phase = 'starting' | 'database' | 'demo' | 'providers' | 'ready';

declare module '@/lib/core/runtime' {
  interface Runtime {
    startupPhase: { phase: Phase; waiting: (() => void)[] };
  }
}
export const startupPhase = () => shared('startupPhase', () => ({ phase: 'starting' as Phase, waiting: [] as (() => void)[] }));
export function setPhase(phase: Phase): void {
  const state = startupPhase();
  state.phase = phase;
  if (phase === 'ready') for (const resume of state.waiting.splice(0)) resume();
}

/** Resolves once the server is ready (at once if it is): for what start-up begins but should not hold up. */
export function whenReady(): Promise<void> {
  const state = startupPhase();
  return state.phase === 'ready' ? Promise.resolve() : new Promise((resolve) => state.waiting.push(resolve));
}
