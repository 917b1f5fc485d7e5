import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { config } from '@/lib/config';

/**
 * AES-256-GCM for secrets that must be returned to their owner later (alias passcode,
 * jwt_secret, stream_key; demo credentials). Stored form: `v1.<base64url(iv | tag | ciphertext)>`.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
    this.#key = key;
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Names the key without revealing it: the first 16 hex digits of its SHA-256 (backup manifests). */
  fingerprint(): string {
    return createHash('sha256').update(this.#key).digest('hex').slice(0, 16);
  }

  /**
   * A key derived for one purpose (HMAC-SHA256 of `purpose`), as 64 hex digits: the instances of a
   * cluster share the secret key, so they share these too (the tunnels' forwarding route, design §14).
   */
  derive(purpose: string): string {
    return createHmac('sha256', this.#key).update(purpose).digest('hex');
  }

  /** The key itself, as 64 hex digits: only for a backup made with --include-key. */
  exportKey(): string {
    return this.#key.toString('hex');
  }

  /** Throws when the value was not made with this key or was altered. */
  decrypt(stored: string): string {
    if (!stored.startsWith('v1.')) throw new Error('unknown secret format');
    const raw = Buffer.from(stored.slice(3), 'base64url');
    if (raw.length < 28) throw new Error('secret too short');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** Parses TRIAD_SECRET_KEY: 64 hex characters or base64 of 32 bytes. */
export function parseKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('TRIAD_SECRET_KEY must be 32 bytes');
  return key;
}

/**
 * The key file of embedded mode: created (mode 0600) on first use, read afterwards.
 * `wx` makes creation atomic, so two racing starters end up with one key.
 */
export function loadOrCreateKeyFile(dataDir: string): Buffer {
  const file = path.join(dataDir, 'secret.key');
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return parseKey(fs.readFileSync(file, 'utf8').trim());
}

let box: SecretBox | undefined;

/** The process-wide SecretBox: TRIAD_SECRET_KEY, else the data directory's key file. */
export function secretBox(): SecretBox {
  if (!box) {
    const c = config();
    box = new SecretBox(c.TRIAD_SECRET_KEY ? parseKey(c.TRIAD_SECRET_KEY) : loadOrCreateKeyFile(c.dataDir));
  }
  return box;
}
