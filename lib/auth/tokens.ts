import crypto, { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Credential kinds and their readable prefixes (design §2). */
export const TOKEN_PREFIX = {
  orgToken: 'org_',
  apiKey: 'sk_live_',
  partnerSecret: 'pt_sec_',
  adminToken: 'adm_',
} as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;

/** A new credential: 256 random bits after its prefix. The plaintext is shown once and never stored. */
export function generateToken(kind: TokenKind): string {
  return TOKEN_PREFIX[kind] + randomBytes(32).toString('base64url');
}

// crypto.hash (Node 20.12, 21.7 and later) hashes without making a Hash object: cheaper at every request's key.
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : null;

/** What is stored: the SHA-256 of the token (hex). A fast hash suffices for 256-bit random tokens. */
export function hashToken(token: string): string {
  return oneShot ? oneShot('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The first characters of a token, safe to show in lists ("org_AbCd…"). */
export function displayPrefix(token: string): string {
  const prefix = Object.values(TOKEN_PREFIX).find((p) => token.startsWith(p)) ?? '';
  return token.slice(0, prefix.length + 4);
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a, 'utf8').digest();
  const y = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}

/** True when `token` hashes to `storedHash`, compared in constant time. */
export function tokenMatches(token: string, storedHash: string): boolean {
  const computed = Buffer.from(hashToken(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === computed.length && timingSafeEqual(computed, stored);
}

/** Extracts the credential from `Authorization: Bearer <token>` (the bare token is accepted too, as the interface shows both). */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^\s*(?:Bearer\s+)?(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}
