import { describe, expect, it } from 'vitest';
import { addDecimals, ceilDecimal, compareDecimals, DECIMAL_TEXT, multiplyDecimals, shiftDecimal, subtractDecimals } from './decimal';

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

describe('decimal arithmetic', () => {
  it('multiplies, shifts and subtracts exactly', () => {
    expect(multiplyDecimals('1234', '0.15')).toBe('185.1');
    expect(shiftDecimal(multiplyDecimals('3', '0.000001'), 6)).toBe('0.000000000003');
    expect(shiftDecimal('2500', 6)).toBe('0.0025');
    expect(subtractDecimals('0.3', '0.1')).toBe('0.2');
    expect(subtractDecimals('0.1', '0.3')).toBe('-0.2');
    expect(subtractDecimals('1', '1.000')).toBe('0');
  });
  it('compares and rounds up', () => {
    expect(compareDecimals('0.10', '0.1')).toBe(0);
    expect(compareDecimals('0.099999999999', '0.1')).toBe(-1);
    expect(compareDecimals('2', '10')).toBe(-1);
    expect(ceilDecimal('0.0000000001', 9)).toBe('0.000000001');
    expect(ceilDecimal('0.123', 9)).toBe('0.123');
    expect(ceilDecimal('1.0000000010', 9)).toBe('1.000000001');
  });
});
