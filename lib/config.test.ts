import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config';

describe('parseConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      driver: 'pglite',
      dataDir: path.resolve('./data'),
      TRIAD_DEMO: true,
      TRIAD_MAX_BODY_BYTES: 1024 * 1024,
      TRIAD_HEARTBEAT_TIMEOUT_S: 120,
      TRIAD_ALIAS_RETENTION_DAYS: 30,
      TRIAD_LINK_RATE_PER_S: 60,
    });
  });

  it('remembers a checked credential 60 s on the embedded database, 2 s on PostgreSQL, else as told', () => {
    const postgres = { DATABASE_URL: 'postgres://localhost/triad', TRIAD_SECRET_KEY: 'a'.repeat(64) };
    expect(parseConfig({}).TRIAD_AUTH_CACHE_TTL_MS).toBe(60_000);
    expect(parseConfig(postgres).TRIAD_AUTH_CACHE_TTL_MS).toBe(2000);
    expect(parseConfig({ TRIAD_AUTH_CACHE_TTL_MS: '0' }).TRIAD_AUTH_CACHE_TTL_MS).toBe(0);
    expect(parseConfig({ ...postgres, TRIAD_AUTH_CACHE_TTL_MS: '500' }).TRIAD_AUTH_CACHE_TTL_MS).toBe(500);
  });

  it('treats an empty variable as unset, and reads flags and numbers', () => {
    const c = parseConfig({ PORT: '', TRIAD_DEMO: '0', TRIAD_MAX_BODY_BYTES: '2048' });
    expect(c.PORT).toBe(3000);
    expect(c.TRIAD_DEMO).toBe(false);
    expect(c.TRIAD_MAX_BODY_BYTES).toBe(2048);
  });

  it('names every bad variable in one message', () => {
    expect(() => parseConfig({ PORT: 'eighty', TRIAD_DEMO: 'maybe', DATABASE_URL: 'mysql://x' })).toThrow(ConfigError);
    try {
      parseConfig({ PORT: 'eighty', TRIAD_DEMO: 'maybe', DATABASE_URL: 'mysql://x' });
    } catch (e) {
      expect((e as Error).message).toMatch(/PORT: /);
      expect((e as Error).message).toMatch(/TRIAD_DEMO: /);
      expect((e as Error).message).toMatch(/DATABASE_URL: must be a URL with protocol postgres: or postgresql:/);
    }
  });

  it('requires a shared TRIAD_SECRET_KEY with PostgreSQL, and selects that driver', () => {
    expect(() => parseConfig({ DATABASE_URL: 'postgres://localhost/triad' })).toThrow(
      /TRIAD_SECRET_KEY: required when DATABASE_URL is set/,
    );
    const c = parseConfig({ DATABASE_URL: 'postgres://localhost/triad', TRIAD_SECRET_KEY: 'ab'.repeat(32) });
    expect(c.driver).toBe('postgres');
    expect(() => parseConfig({ TRIAD_SECRET_KEY: 'short' })).toThrow(/TRIAD_SECRET_KEY: must be 32 bytes/);
  });

  it('reads TRIAD_ALLOWED_HOSTS as lowercased host names, and refuses one with a port or a path', () => {
    expect(parseConfig({}).TRIAD_ALLOWED_HOSTS).toEqual([]);
    expect(parseConfig({ TRIAD_ALLOWED_HOSTS: 'Triad.LAN, box ,[fd00::1]' }).TRIAD_ALLOWED_HOSTS).toEqual([
      'triad.lan',
      'box',
      '[fd00::1]',
    ]);
    expect(() => parseConfig({ TRIAD_ALLOWED_HOSTS: 'triad.lan:3000' })).toThrow(/TRIAD_ALLOWED_HOSTS/);
    expect(() => parseConfig({ TRIAD_ALLOWED_HOSTS: 'evil.example/x' })).toThrow(/TRIAD_ALLOWED_HOSTS/);
  });
});
