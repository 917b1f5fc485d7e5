import { describe, expect, it } from 'vitest';
import {
  addDecimals,
  ceilDecimal,
  compareDecimals,
  DECIMAL_TEXT,
  multiplyDecimals,
  shiftDecimal,
  subtractDecimals,
  weightedSum,
} from './decimal';

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

describe('weightedSum', () => {
  it('is the sum of the products, shifted, to the last digit (the cost of tokens at prices per million)', () => {
    expect(
      weightedSum(
        [
          [1234, '0.15'],
          [56, '0.6'],
        ],
        6,
      ),
    ).toBe('0.0002187');
    expect(weightedSum([[1, '0.000000000000000001']], 6)).toBe('0.000000000000000000000001');
    expect(
      weightedSum(
        [
          [0, '3'],
          [7, null],
        ],
        6,
      ),
    ).toBe('0');
    expect(weightedSum([[1_000_000, '2.50']], 6)).toBe('2.5');
    // Against the same cost worked out step by step, on random counts and prices.
    for (let i = 0; i < 500; i++) {
      const price = () =>
        Math.random() < 0.1
          ? null
          : `${Math.floor(Math.random() * 100)}.${String(Math.floor(Math.random() * 1e6)).padStart(1 + (i % 6), '0')}`;
      const [a, b] = [Math.floor(Math.random() * 1e6), Math.floor(Math.random() * 1e5)];
      const [p, q] = [price(), price()];
      const stepwise = shiftDecimal(addDecimals(p ? multiplyDecimals(String(a), p) : '0', q ? multiplyDecimals(String(b), q) : '0'), 6);
      expect(
        weightedSum(
          [
            [a, p],
            [b, q],
          ],
          6,
        ),
        `${a} × ${p} + ${b} × ${q}`,
      ).toBe(stepwise);
    }
  });
});
