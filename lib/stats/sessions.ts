/*
 * The uptime maths, pure: connection events → sessions → hourly uptime. No I/O here.
 *
 * A session opened by `connect` ends at the next `disconnect`. A `heartbeat` with no open
 * session opens one; a session opened by heartbeats ends at its last heartbeat once no further
 * heartbeat arrives within the timeout. Times are Unix milliseconds; sessions are [start, end).
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** The interface's longest uptime range: 14 days. */
export const MAX_RANGE_MS = 1_209_600_000;

export type EventType = 'connect' | 'disconnect' | 'heartbeat';
export type SessionEvent = { type: EventType; at: number; seq?: number };
export type OpenSession = { start: number; openedBy: 'connect' | 'heartbeat'; lastHeartbeatAt: number | null };
export type ClosedSession = { start: number; end: number; openedBy: 'connect' | 'heartbeat' };

export const floorHour = (ms: number) => ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);

/** At one instant, a disconnect is applied before a connect, and both before a heartbeat. */
const TYPE_ORDER: Record<EventType, number> = { disconnect: 0, connect: 1, heartbeat: 2 };

export function sortEvents<E extends SessionEvent>(events: E[]): E[] {
  return [...events].sort((a, b) => a.at - b.at || TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || (a.seq ?? 0) - (b.seq ?? 0));
}

const heartbeatsStopped = (open: OpenSession, now: number, timeoutMs: number) =>
  open.openedBy === 'heartbeat' && open.lastHeartbeatAt !== null && now - open.lastHeartbeatAt > timeoutMs;

/**
 * Applies events, in order, to the state of one node. Returns the sessions that closed (the one
 * open at the start included, if it closed) and the session open at the end.
 */
export function applyEvents(
  open: OpenSession | null,
  events: SessionEvent[],
  heartbeatTimeoutMs: number,
): {
  closed: ClosedSession[];
  open: OpenSession | null;
  /** What became of the session open at the start: still open (`open` is it), closed (`closed[0]` is it), or there was none. */
  initial: 'kept' | 'closed' | 'none';
} {
  const closed: ClosedSession[] = [];
  let current = open ? { ...open } : null;
  let initial: 'kept' | 'closed' | 'none' = open ? 'kept' : 'none';
  const close = (end: number) => {
    if (current) closed.push({ start: current.start, end: Math.max(end, current.start), openedBy: current.openedBy });
    if (current && initial === 'kept' && closed.length === 1) initial = 'closed';
    current = null;
  };
  /** A heartbeat session whose heartbeats stopped before `at` ended at its last heartbeat. */
  const expireBefore = (at: number) => {
    if (current && heartbeatsStopped(current, at, heartbeatTimeoutMs)) close(current.lastHeartbeatAt!);
  };
  for (const e of events) {
    expireBefore(e.at);
    if (e.type === 'connect') {
      current ??= { start: e.at, openedBy: 'connect', lastHeartbeatAt: null };
    } else if (e.type === 'disconnect') {
      close(e.at);
    } else {
      if (current) current.lastHeartbeatAt = Math.max(current.lastHeartbeatAt ?? e.at, e.at);
      else current = { start: e.at, openedBy: 'heartbeat', lastHeartbeatAt: e.at };
    }
  }
  return { closed, open: current, initial };
}

/** Where an open session counts until at `now`: now, or its last heartbeat once heartbeats have stopped. */
export function effectiveEnd(open: OpenSession, now: number, heartbeatTimeoutMs: number): number {
  return heartbeatsStopped(open, now, heartbeatTimeoutMs) ? open.lastHeartbeatAt! : Math.max(now, open.start);
}

export function isConnected(open: OpenSession | null, now: number, heartbeatTimeoutMs: number): boolean {
  return !!open && !heartbeatsStopped(open, now, heartbeatTimeoutMs);
}

export const overlap = (aStart: number, aEnd: number, bStart: number, bEnd: number) =>
  Math.max(0, Math.min(aEnd, bEnd) - Math.max(aStart, bStart));

/** The uptime of [start, end) per hour it touches: hour start → milliseconds. */
export function hourlyOverlaps(start: number, end: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let h = floorHour(start); h < end; h += HOUR_MS) {
    const ms = overlap(start, end, h, h + HOUR_MS);
    if (ms > 0) out.set(h, ms);
  }
  return out;
}

export type Range = { start: number; end: number };

/**
 * The interface's range rules: both bounds rounded down to the hour, start ≤ end, at most 14 days
 * after rounding. Returns the rounded range, or a reason it is refused.
 */
export function roundRange(startedAt: number, endedAt: number, maxMs = MAX_RANGE_MS): Range | { error: string } {
  const start = floorHour(startedAt);
  const end = floorHour(endedAt);
  if (start > end) return { error: 'started_at must not be after ended_at' };
  if (end - start > maxMs)
    return { error: `the range is ${((end - start) / DAY_MS).toFixed(1)} days after rounding to the hour; at most ${maxMs / DAY_MS} days` };
  return { start, end };
}
