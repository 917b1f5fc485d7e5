import { describe, expect, it } from 'vitest';
import { aliasNotFound } from '@/lib/errors/link';
import { MAX_REPEATS, refusalBody, refuseTarget } from './request-guard';
import { queryObject } from './validation';

describe('request target guard', () => {
  it('lets ordinary targets through, with the longest list an endpoint takes', () => {
    expect(refuseTarget('/api/health', 128)).toBeNull();
    expect(refuseTarget('/api/v1/uptime?secret=s&partner_node_id=n&started_at=1&ended_at=2', 128)).toBeNull();
    const ids = Array.from({ length: MAX_REPEATS }, (_, i) => `partner_node_id%5B%5D=n${i}`).join('&');
    expect(refuseTarget(`/api/v1/partner/details?secret=s&${ids}`, 128)).toBeNull();
    expect(refuseTarget('/stats/n%C3%A9', 128)).toBeNull();
  });

  it('refuses too many parameters, and one key repeated too often however it is spelled', () => {
    expect(refuseTarget(`/api/health?${Array(7900).fill('a').join('&')}`, 128)).toMatch(/"a" is repeated more than 100 times/);
    expect(refuseTarget(`/api/health?${Array.from({ length: 129 }, (_, i) => `k${i}=1`).join('&')}`, 128)).toMatch(
      /more than 128 parameters/,
    );
    const mixed = Array.from({ length: MAX_REPEATS + 1 }, (_, i) => (i % 3 === 0 ? 'id[]=1' : i % 3 === 1 ? 'id%5B%5D=1' : 'id=1')).join(
      '&',
    );
    expect(refuseTarget(`/api/v1/partner/details?${mixed}`, 1000)).toMatch(/"id" is repeated more than 100 times/);
    // Empty pieces (`&&&`) are no parameters.
    expect(refuseTarget(`/api/health?${'&'.repeat(5000)}a=1`, 128)).toBeNull();
  });

  it('refuses a path that is not valid percent-encoding', () => {
    expect(refuseTarget('/organization/api/v1/alias/%E0%A4%A', 128)).toMatch(/percent-encoding/);
    expect(refuseTarget('/stats/%E0%A4%A?x=1', 128)).toMatch(/percent-encoding/);
    expect(refuseTarget('/stats/%', 128)).toMatch(/percent-encoding/);
  });

  it('answers in the error shape of the route it is given (the route table finds it: lib/server/routes.test.ts)', () => {
    expect(refusalBody({ format: 'chat' }, 'why')).toEqual({
      error: { message: 'Invalid request: why.', type: 'invalid_request_error', code: 'invalid_request' },
    });
    expect(refusalBody({ badInput: aliasNotFound }, 'why')).toEqual({ error: { message: 'NOT_FOUND', status: 400, detail: 'why' } });
    expect(refusalBody({}, 'why')).toEqual({ error: { message: 'INVALID_PARAMETERS', status: 400, detail: 'why' } });
    expect(refusalBody(null, 'why')).toEqual({ error: { message: 'INVALID_PARAMETERS', status: 400, detail: 'why' } });
  });
});

describe('queryObject', () => {
  it('keeps every value of a repeated key, in order, and a single one as a string', () => {
    expect(queryObject('http://x/?a=1&b=2&a=3&c[]=4&a=5')).toEqual({ a: ['1', '3', '5'], b: '2', c: ['4'] });
  });

  it('grows linearly: 100 000 values of one key are read in one pass', () => {
    // A copy per value (the old code) made this 5·10⁹ element copies; counted, not timed.
    const url = `http://x/?${Array(100_000).fill('a=1').join('&')}`;
    const out = queryObject(url);
    expect((out.a as string[]).length).toBe(100_000);
  });
});
