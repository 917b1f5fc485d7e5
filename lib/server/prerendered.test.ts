import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { takesGzip } from './prerendered';

const asking = (acceptEncoding?: string) =>
  ({ headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }) as IncomingMessage;

describe('takesGzip', () => {
  it('reads Accept-Encoding as browsers and tools send it', () => {
    expect(takesGzip(asking('gzip, deflate, br, zstd'))).toBe(true);
    expect(takesGzip(asking('br;q=1.0, gzip;q=0.8, *;q=0.1'))).toBe(true);
    expect(takesGzip(asking('GZIP'))).toBe(true);
    expect(takesGzip(asking('*'))).toBe(true);
  });
  it('sends it plain to a client that does not take gzip', () => {
    expect(takesGzip(asking())).toBe(false);
    expect(takesGzip(asking(''))).toBe(false);
    expect(takesGzip(asking('identity'))).toBe(false);
    expect(takesGzip(asking('br, deflate'))).toBe(false);
    expect(takesGzip(asking('gzip;q=0, *'))).toBe(false);
    expect(takesGzip(asking('*;q=0'))).toBe(false);
  });
});
