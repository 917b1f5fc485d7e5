import { afterEach, describe, expect, it, vi } from 'vitest';
import { hostIsThisMachine, hostName } from './peer';

vi.mock('@/lib/config', async (original) => {
  const actual = await original<typeof import('@/lib/config')>();
  return { ...actual, config: () => actual.parseConfig({ TRIAD_ALLOWED_HOSTS: process.env.TEST_ALLOWED_HOSTS }) };
});
afterEach(() => delete process.env.TEST_ALLOWED_HOSTS);

describe('Host of local-only routes', () => {
  it('names this machine with any port', () => {
    for (const host of ['localhost', 'localhost:3000', 'LOCALHOST:3000', '127.0.0.1', '127.0.0.1:8080', '[::1]', '[::1]:3000']) {
      expect(hostIsThisMachine(host), host).toBe(true);
    }
  });

  it('refuses any other name, a missing Host and look-alikes', () => {
    for (const host of [
      null,
      '',
      'evil.example',
      'evil.example:3000',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      'localhost:3000@evil.example',
      '::1',
      '[::2]:3000',
      '10.0.0.5',
      'localhost:abc',
    ]) {
      expect(hostIsThisMachine(host), String(host)).toBe(false);
    }
  });

  it('adds the hosts of TRIAD_ALLOWED_HOSTS', () => {
    process.env.TEST_ALLOWED_HOSTS = 'triad.lan';
    expect(hostIsThisMachine('Triad.LAN:3000')).toBe(true);
    expect(hostIsThisMachine('other.lan')).toBe(false);
    expect(hostName('[FD00::1]:80')).toBe('[fd00::1]');
  });
});
