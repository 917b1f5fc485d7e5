import { describe, expect, it } from 'vitest';
import { isDatabaseDown } from './outage';

describe('isDatabaseDown', () => {
  it('knows a database that cannot be reached, also wrapped by Drizzle', () => {
    expect(isDatabaseDown(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseDown(new Error('Failed query: select 1', { cause: new Error('Connection terminated unexpectedly') }))).toBe(true);
    expect(isDatabaseDown(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseDown(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('leaves every other error alone', () => {
    expect(isDatabaseDown(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseDown(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isDatabaseDown(null)).toBe(false);
  });
});
