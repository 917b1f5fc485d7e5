import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { type AliasJwtClaims, aliasJwtClaimsSchema } from './schema';

/**
 * Verification of an alias JWT (interface 4.9, design §6): HMAC only (never `none`, never an
 * asymmetric algorithm, whatever the header says), signed with the alias's jwt_secret, `alias`
 * claim equal to the id in the path, and not expired: by `exp` when present, else by
 * `iat + expires_in` (both then required). 60 s clock tolerance; lifetime capped by config.
 */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'];
export const CLOCK_TOLERANCE_S = 60;

/** Imported HMAC keys by (secret, algorithm): importing one costs more than the verification itself. */
const keyCache = new Map<string, Promise<CryptoKey>>();
const KEY_CACHE_SIZE = 1000;
function hmacKey(secret: string, alg: string): Promise<CryptoKey> {
  const id = `${alg}\0${secret}`;
  let key = keyCache.get(id);
  if (!key) {
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: `SHA-${alg.slice(2)}` }, false, [
      'verify',
    ]);
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(id, key);
  }
  return key;
}

export class AliasJwtError extends Error {
  override name = 'AliasJwtError';
}

/** Three base64url segments: what a compact JWS looks like (tells a JWT from an org token). */
export const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

export async function verifyAliasJwt(
  token: string,
  {
    secret,
    aliasId,
    maxLifetimeS,
    now = Math.floor(Date.now() / 1000),
  }: { secret: string; aliasId: string; maxLifetimeS: number; now?: number },
): Promise<AliasJwtClaims> {
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw new AliasJwtError('the token is not a JWT');
  }
  if (!alg || !JWT_ALGORITHMS.includes(alg))
    throw new AliasJwtError(`algorithm ${alg ?? 'none'} is not accepted; use HS256, HS384 or HS512`);

  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, await hmacKey(secret, alg), {
      algorithms: JWT_ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: new Date(now * 1000),
    }));
  } catch (e) {
    if (e instanceof errors.JWTExpired) throw new AliasJwtError('the token has expired');
    if (e instanceof errors.JWSSignatureVerificationFailed) throw new AliasJwtError('the signature does not match this alias');
    throw new AliasJwtError(e instanceof errors.JOSEError ? e.message : 'the token could not be verified');
  }

  const parsed = aliasJwtClaimsSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AliasJwtError(`claim ${issue.path.join('.') || '?'}: ${issue.message}`);
  }
  const claims = parsed.data;
  if (claims.alias !== aliasId) throw new AliasJwtError('the alias claim names another alias');
  if (claims.iat !== undefined && claims.iat > now + CLOCK_TOLERANCE_S) throw new AliasJwtError('iat is in the future');

  if (claims.exp !== undefined) {
    // jose has checked exp against now; the lifetime must stay within the cap.
    const issued = claims.iat ?? now;
    if (claims.exp - issued > maxLifetimeS) throw new AliasJwtError(`the token lives longer than ${maxLifetimeS} s`);
  } else {
    if (claims.iat === undefined || claims.expires_in === undefined) {
      throw new AliasJwtError('the token has no expiry: give exp, or iat and expires_in');
    }
    if (claims.expires_in > maxLifetimeS) throw new AliasJwtError(`expires_in is over ${maxLifetimeS} s`);
    if (claims.iat + claims.expires_in <= now - CLOCK_TOLERANCE_S) throw new AliasJwtError('the token has expired');
  }
  return claims;
}
