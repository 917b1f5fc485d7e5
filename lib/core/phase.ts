import { shared } from './runtime';

/*
 * How far the server's start-up has come (lib/startup.ts sets it): what `/api/health` says, at once,
 * until the server is ready (lib/server/main.ts answers it then, before Next is asked).
 */
export type Phase = 'starting' | 'database' | 'demo' | 'providers' | 'ready';

declare module '@/lib/core/runtime' {
  interface Runtime {
    startupPhase: { phase: Phase };
  }
}
export const startupPhase = () => shared('startupPhase', () => ({ phase: 'starting' as Phase }));
export const setPhase = (phase: Phase) => void (startupPhase().phase = phase);
