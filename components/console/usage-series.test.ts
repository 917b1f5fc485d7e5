import { describe, expect, it } from 'vitest';
import { MAX_SERIES, OTHERS, type Row, seriesOf } from './usage-series';

const groups = (n: number) => Array.from({ length: n }, (_, i): [string, string] => [`g${i}`, `Group ${i}`]);
/** Two buckets; group i has i requests in the first and 1 in the second. */
const rows = (n: number): Row[] => [
  { t: 0, ...Object.fromEntries(groups(n).map(([g], i) => [`requests:${g}`, i])) },
  { t: 1, ...Object.fromEntries(groups(n).map(([g]) => [`requests:${g}`, 1])) },
];

describe('seriesOf', () => {
  it('draws every group when they are few', () => {
    const few = seriesOf(rows(MAX_SERIES + 1), groups(MAX_SERIES + 1), 'requests');
    expect(few.groups).toEqual(groups(MAX_SERIES + 1));
    expect(few.rows).toEqual(rows(MAX_SERIES + 1));
  });
  it('keeps the busiest and folds the rest into one series whose stack keeps every bucket total', () => {
    const n = 30;
    const { rows: out, groups: shown } = seriesOf(rows(n), groups(n), 'requests');
    expect(shown).toHaveLength(MAX_SERIES + 1);
    expect(shown.slice(0, MAX_SERIES).map(([g]) => g)).toEqual(['g29', 'g28', 'g27', 'g26', 'g25', 'g24', 'g23']);
    expect(shown.at(-1)).toEqual([OTHERS, `Others (${n - MAX_SERIES})`]);
    for (const [k, r] of out.entries()) {
      const drawn = shown.reduce((sum, [g]) => sum + (r[`requests:${g}`] ?? 0), 0);
      const whole = groups(n).reduce((sum, [g]) => sum + (rows(n)[k]![`requests:${g}`] ?? 0), 0);
      expect(drawn).toBe(whole);
    }
    expect(out[1]![`requests:${OTHERS}`]).toBe(n - MAX_SERIES); // one each in the second bucket
  });
  it('ranks by the metric it draws', () => {
    const r: Row[] = [
      {
        t: 0,
        'errors:g0': 9,
        ...Object.fromEntries(
          groups(12)
            .slice(1)
            .map(([g]) => [`errors:${g}`, 0]),
        ),
      },
    ];
    expect(seriesOf(r, groups(12), 'errors').groups[0]).toEqual(['g0', 'Group 0']);
  });
});
