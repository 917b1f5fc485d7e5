import { shared } from './runtime';

/*
 * The requests this process's server has in flight, and work that waits for a moment with none: a
 * background look-up that runs on the server's own thread (the embedded database's queries do) and would
 * otherwise hold up a request that is waiting for its model server's reply. The server counts each
 * request from its start to its close (lib/server/main.ts); the idle heap collection reads the same count
 * (lib/server/idle-gc.ts). Where nothing counts (a test, a script), the process is always quiet.
 */
type InFlight = { open: number; begun: number; lastEnded: number; waiting: (() => void)[] };
declare module '@/lib/core/runtime' {
  interface Runtime {
    inFlight: InFlight;
  }
}
const state = shared('inFlight', () => ({ open: 0, begun: 0, lastEnded: 0, waiting: [] }));

/** A request has come in. */
export function requestBegan(): void {
  state.open++;
  state.begun++;
}

/** A request has closed (answered, or its client gone); waiting work runs once none is left. */
export function requestEnded(): void {
  state.lastEnded = performance.now();
  if (--state.open > 0 || state.waiting.length === 0) return;
  const due = state.waiting.splice(0);
  setImmediate(() => {
    for (const run of due) run();
  });
}

/** The requests in flight now, how many have begun since the process started, and when one last closed (performance.now()). */
export const requests = (): Readonly<{ open: number; begun: number; lastEnded: number }> => state;

/**
 * Runs `work` after the current turn once no request is in flight, or after `latestMs` whatever the
 * load (a busy server is never quiet; the work must still be done in time).
 */
export function whenQuiet(work: () => void, latestMs: number): void {
  if (state.open === 0) return void setImmediate(work);
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    work();
  };
  const timer = setTimeout(run, Math.max(0, latestMs));
  timer.unref();
  state.waiting.push(run);
}

/** Resolves at a moment with no request in flight (see whenQuiet), or after `latestMs` whatever the load. */
export const quiet = (latestMs: number): Promise<void> => new Promise((resolve) => whenQuiet(resolve, latestMs));
