import { randomBytes } from 'node:crypto';

/*
 * Random identifiers for things that are not secrets (a completion's id): drawn from a pool of random
 * bytes filled 4 KB at a time, as Node does for randomUUID(). A call of randomBytes per request costs
 * a system call (about 10 µs under load, `npm run bench:chat`); this costs a slice.
 * Never for credentials: those take randomBytes of their own (lib/auth/tokens.ts).
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let at = 0;

/** `bytes` random bytes as base64url (12 → 16 characters). */
export function randomId(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomId takes at most ${POOL_BYTES} bytes`);
  if (at + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const id = pool.toString('base64url', at, at + bytes);
  at += bytes;
  return id;
}
