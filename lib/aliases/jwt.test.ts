import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { looksLikeJwt, verifyAliasJwt } from './jwt';

const secret = 'x'.repeat(32);
const NOW = 1_800_000_000;
const sign = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
const verify = (token: string, now = NOW) => verifyAliasJwt(token, { secret, aliasId: 'abcdefghij', maxLifetimeS: 3600, now });
const base = { alias: 'abcdefghij', user_id: 'u', host: false };

describe('verifyAliasJwt expiry', () => {
  it('accepts iat + expires_in up to 60 s past the end, and not after', async () => {
    const token = await sign({ ...base, iat: NOW - 100, expires_in: 100 });
    await expect(verify(token, NOW + 59)).resolves.toMatchObject({ user_id: 'u' });
    await expect(verify(token, NOW + 60)).rejects.toThrow('the token has expired');
  });

  it('accepts an iat up to 60 s ahead (clock skew), not more', async () => {
    await expect(verify(await sign({ ...base, iat: NOW + 60, expires_in: 10 }))).resolves.toBeDefined();
    await expect(verify(await sign({ ...base, iat: NOW + 61, expires_in: 10 }))).rejects.toThrow('iat is in the future');
  });

  it('prefers exp when present, and caps the lifetime', async () => {
    await expect(verify(await sign({ ...base, iat: NOW, exp: NOW + 3600 }))).resolves.toBeDefined();
    await expect(verify(await sign({ ...base, iat: NOW, exp: NOW + 3601 }))).rejects.toThrow(/longer than 3600/);
    await expect(verify(await sign({ ...base, exp: NOW - 61 }))).rejects.toThrow('the token has expired');
    await expect(verify(await sign({ ...base, iat: NOW, expires_in: 3601 }))).rejects.toThrow(/expires_in is over 3600/);
  });

  it('refuses a token with no expiry', async () => {
    await expect(verify(await sign({ ...base }))).rejects.toThrow(/no expiry/);
    await expect(verify(await sign({ ...base, iat: NOW }))).rejects.toThrow(/no expiry/);
  });
});

describe('looksLikeJwt', () => {
  it('tells a compact JWS from an org token', () => {
    expect(looksLikeJwt('eyJhbGciOiJIUzI1NiJ9.eyJhIjoxfQ.sig')).toBe(true);
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJhIjoxfQ.')).toBe(true);
    expect(looksLikeJwt('org_AbC-def_123')).toBe(false);
    expect(looksLikeJwt('a.b')).toBe(false);
  });
});
