import { describe, expect, it } from 'vitest';
import { addDecimals, DECIMAL_TEXT } from './decimal';

describe('addDecimals', () => {
  it('adds exactly where floating point would not', () => {
    expect(addDecimals('0.1', '0.2')).toBe('0.3');
    expect(addDecimals('1.005', '2.995')).toBe('4');
    expect(addDecimals('12', '0.000000000000000001')).toBe('12.000000000000000001');
    expect(addDecimals('999999999999999999999', '1')).toBe('1000000000000000000000');
    expect(addDecimals('0', '0.50')).toBe('0.5');
  });
  it('accepts plain non-negative decimal text only', () => {
    for (const ok of ['0', '12', '12.5', '0.000001']) expect(DECIMAL_TEXT.test(ok)).toBe(true);
    for (const bad of ['-1', '1e5', '.5', '5.', ' 1', 'NaN', '1,5']) expect(DECIMAL_TEXT.test(bad)).toBe(false);
  });
});
