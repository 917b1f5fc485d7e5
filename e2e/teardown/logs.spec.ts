import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { e2eDataDir, e2eLogFile, E2E_SECRETS_FILE, PORTS } from '../../scripts/lib/test-env.mjs';

test('the logs of the whole run hold request lines and not one of the credentials it used', () => {
  const secrets = new Set(fs.readFileSync(E2E_SECRETS_FILE, 'utf8').split('\n').filter(Boolean));
  const ports = [PORTS.pglite, ...(process.env.TEST_DATABASE_URL ? [PORTS.postgres] : [])];
  // The demo credentials are printed once at first start, on purpose: they are not looked for.
  for (const port of ports) {
    const demoFile = `${e2eDataDir(port)}/demo-credentials.json`;
    const demo = fs.existsSync(demoFile) ? Object.values(JSON.parse(fs.readFileSync(demoFile, 'utf8'))).flat() : [];
    for (const d of demo) secrets.delete(String(d));
  }
  expect(secrets.size).toBeGreaterThan(20);
  for (const port of ports) {
    const log = fs.readFileSync(e2eLogFile(port), 'utf8');
    const requests = log.split('\n').filter((l) => l.includes('"msg":"request"'));
    expect(requests.length, `requests logged on port ${port}`).toBeGreaterThan(100);
    expect(requests.some((l) => l.includes('"path":"/organization/api/v1/alias/'))).toBe(true);
    for (const secret of secrets)
      expect(log.includes(secret), `a credential (${secret.slice(0, 8)}…) is in the log of port ${port}`).toBe(false);
    // Query strings are never logged (they carry `secret` and `passcode`).
    expect(log).not.toMatch(/"path":"[^"]*\?/);
  }
});
