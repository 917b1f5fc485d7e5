import { describe, expect, it } from 'vitest';
import {
  applyEvents,
  effectiveEnd,
  floorHour,
  HOUR_MS,
  hourlyOverlaps,
  isConnected,
  roundRange,
  sortEvents,
  type SessionEvent,
} from './sessions';

const T = 1_800_000_000_000 - (1_800_000_000_000 % HOUR_MS); // an hour boundary
const TIMEOUT = 120_000;
const run = (events: SessionEvent[]) => applyEvents(null, sortEvents(events), TIMEOUT);

describe('sessions from events', () => {
  it('a connect opens a session and the next disconnect closes it', () => {
    expect(
      run([
        { type: 'connect', at: T },
        { type: 'disconnect', at: T + 5000 },
      ]),
    ).toEqual({
      closed: [{ start: T, end: T + 5000, openedBy: 'connect' }],
      open: null,
      initial: 'none',
    });
  });

  it('ignores a repeated connect and a disconnect with nothing open', () => {
    const r = run([
      { type: 'disconnect', at: T },
      { type: 'connect', at: T + 1 },
      { type: 'connect', at: T + 50 },
      { type: 'disconnect', at: T + 100 },
    ]);
    expect(r.closed).toEqual([{ start: T + 1, end: T + 100, openedBy: 'connect' }]);
  });

  it('orders out-of-order events by time before applying them', () => {
    const r = run([
      { type: 'disconnect', at: T + 100 },
      { type: 'connect', at: T + 200 },
      { type: 'connect', at: T },
    ]);
    expect(r.closed).toEqual([{ start: T, end: T + 100, openedBy: 'connect' }]);
    expect(r.open).toEqual({ start: T + 200, openedBy: 'connect', lastHeartbeatAt: null });
  });

  it('heartbeats open a session that ends at the last heartbeat once they stop for longer than the timeout', () => {
    const r = run([
      { type: 'heartbeat', at: T },
      { type: 'heartbeat', at: T + 60_000 },
      { type: 'heartbeat', at: T + 120_000 },
      { type: 'heartbeat', at: T + 500_000 }, // 380 s later: a new session
    ]);
    expect(r.closed).toEqual([{ start: T, end: T + 120_000, openedBy: 'heartbeat' }]);
    expect(r.open).toEqual({ start: T + 500_000, openedBy: 'heartbeat', lastHeartbeatAt: T + 500_000 });
  });

  it('a connect session does not time out on missing heartbeats', () => {
    const r = run([
      { type: 'connect', at: T },
      { type: 'heartbeat', at: T + 10 },
      { type: 'heartbeat', at: T + 10_000_000 },
    ]);
    expect(r.closed).toEqual([]);
    expect(r.open).toMatchObject({ start: T, openedBy: 'connect' });
  });

  it('an open heartbeat session counts until now while heartbeats arrive, else until the last one', () => {
    const open = { start: T, openedBy: 'heartbeat' as const, lastHeartbeatAt: T + 60_000 };
    expect(effectiveEnd(open, T + 100_000, TIMEOUT)).toBe(T + 100_000);
    expect(isConnected(open, T + 100_000, TIMEOUT)).toBe(true);
    expect(effectiveEnd(open, T + 600_000, TIMEOUT)).toBe(T + 60_000);
    expect(isConnected(open, T + 600_000, TIMEOUT)).toBe(false);
    expect(effectiveEnd({ start: T, openedBy: 'connect', lastHeartbeatAt: null }, T + 9e9, TIMEOUT)).toBe(T + 9e9);
  });
});

describe('continuing from an open session', () => {
  it('says whether the session open at the start was kept or closed', () => {
    const open = { start: T, openedBy: 'connect' as const, lastHeartbeatAt: null };
    expect(applyEvents(open, [{ type: 'heartbeat', at: T + 5 }], TIMEOUT)).toMatchObject({
      initial: 'kept',
      open: { start: T, lastHeartbeatAt: T + 5 },
    });
    const r = applyEvents(
      open,
      [
        { type: 'disconnect', at: T + 9 },
        { type: 'connect', at: T + 20 },
      ],
      TIMEOUT,
    );
    expect(r).toMatchObject({ initial: 'closed', closed: [{ start: T, end: T + 9 }], open: { start: T + 20 } });
  });
});

describe('hourly overlaps', () => {
  it('splits a session crossing hour edges', () => {
    const m = hourlyOverlaps(T + HOUR_MS - 1000, T + 2 * HOUR_MS + 500);
    expect([...m]).toEqual([
      [T, 1000],
      [T + HOUR_MS, HOUR_MS],
      [T + 2 * HOUR_MS, 500],
    ]);
    expect([...m.values()].reduce((a, b) => a + b)).toBe(HOUR_MS + 1500);
  });
  it('gives nothing for an empty session', () => {
    expect(hourlyOverlaps(T, T).size).toBe(0);
  });
});

describe('range rules', () => {
  it('rounds both bounds down to the hour', () => {
    expect(roundRange(T + 59 * 60_000, T + 3 * HOUR_MS + 1)).toEqual({ start: T, end: T + 3 * HOUR_MS });
    expect(floorHour(T - 1)).toBe(T - HOUR_MS);
  });
  it('allows exactly 14 days after rounding and refuses more', () => {
    expect(roundRange(T, T + 1_209_600_000 + HOUR_MS - 1)).toEqual({ start: T, end: T + 1_209_600_000 });
    expect(roundRange(T, T + 1_209_600_000 + HOUR_MS)).toHaveProperty('error');
    expect(roundRange(T + 1, T)).toEqual({ start: T, end: T }); // equal after rounding
    expect(roundRange(T + HOUR_MS, T)).toEqual({ error: 'started_at must not be after ended_at' });
  });
});
