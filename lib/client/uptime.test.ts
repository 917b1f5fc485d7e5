import { describe, expect, it } from 'vitest';
import { measure } from './uptime';

const HOUR = 3_600_000;
const point = (start: number, uptime: number) => ({ start, uptime, served: { requests: 0, tokens: 0, usd: '0' } });

describe('uptime as a share of the time passed', () => {
  it('counts the hour under way by its elapsed part, and leaves out hours not begun', () => {
    // 24 h range ending at the next hour; measured 20 minutes into the last hour; connected throughout.
    const start = 100 * HOUR;
    const now = start + 23 * HOUR + 20 * 60_000;
    const points = Array.from({ length: 24 }, (_, i) => point(start + i * HOUR, i < 23 ? HOUR : 20 * 60_000));
    const m = measure({ partner_node_id: 'n', bucket_ms: HOUR, started_at: start, ended_at: start + 24 * HOUR, measured_at: now, points });
    expect(m.percent).toBe(100);
    expect(m.elapsed).toBe(now - start);
    expect(m.points.at(-1)).toMatchObject({ elapsed: 20 * 60_000, share: 1 });

    // A range reaching past now: the hours ahead are not shown, nor counted as down.
    const ahead = [...points, point(start + 24 * HOUR, 0), point(start + 25 * HOUR, 0)];
    const m2 = measure({
      partner_node_id: 'n',
      bucket_ms: HOUR,
      started_at: start,
      ended_at: start + 26 * HOUR,
      measured_at: now,
      points: ahead,
    });
    expect(m2.points).toHaveLength(24);
    expect(m2.percent).toBe(100);
  });

  it('reads down time as down', () => {
    const points = [point(0, HOUR), point(HOUR, HOUR / 2), point(2 * HOUR, 0)];
    const m = measure({ partner_node_id: 'n', bucket_ms: HOUR, started_at: 0, ended_at: 3 * HOUR, measured_at: 3 * HOUR, points });
    expect(m.percent).toBe(50);
    expect(m.points.map((p) => p.share)).toEqual([1, 0.5, 0]);
  });
});
