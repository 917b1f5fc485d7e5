import { describe, expect, it } from 'vitest';
import { countTick, tooltipNumber } from './chart-parts';

describe('chart numbers', () => {
  it('writes a count axis short: 260K, not 260000', () => {
    expect([0, 12, 999, 1500, 65_000, 260_000, 4_119_515].map((v) => countTick(v, 'en-US'))).toEqual([
      '0',
      '12',
      '999',
      '1.5K',
      '65K',
      '260K',
      '4.1M',
    ]);
  });

  it('writes a tooltip number with its thousands, money to six places', () => {
    expect(tooltipNumber(4_119_515, 0, 'en-US')).toBe('4,119,515');
    expect(tooltipNumber(1.8755925, 6, 'en-US')).toBe('1.875593');
    expect(tooltipNumber('n/a')).toBe('n/a');
  });
});
