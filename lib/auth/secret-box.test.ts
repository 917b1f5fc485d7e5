import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateKeyFile, parseKey, SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips text, with a fresh IV each time', () => {
    const a = box.encrypt('pässcode ✓');
    expect(a).toMatch(/^v1\./);
    expect(a).not.toContain('pässcode');
    expect(box.encrypt('pässcode ✓')).not.toBe(a);
    expect(box.decrypt(a)).toBe('pässcode ✓');
  });

  it('refuses altered ciphertext and another key', () => {
    const stored = box.encrypt('secret');
    const raw = Buffer.from(stored.slice(3), 'base64url');
    raw[raw.length - 1]! ^= 1;
    expect(() => box.decrypt(`v1.${raw.toString('base64url')}`)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).decrypt(stored)).toThrow();
    expect(() => box.decrypt('plain')).toThrow(/unknown secret format/);
  });

  it('reads keys as hex or base64 of 32 bytes', () => {
    expect(parseKey('ab'.repeat(32))).toHaveLength(32);
    expect(parseKey(randomBytes(32).toString('base64'))).toHaveLength(32);
    expect(() => parseKey('abcd')).toThrow(/32 bytes/);
  });

  it('creates the key file once, mode 0600, and reads the same key afterwards', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-key-'));
    try {
      const first = loadOrCreateKeyFile(dir);
      expect(loadOrCreateKeyFile(dir).equals(first)).toBe(true);
      expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
