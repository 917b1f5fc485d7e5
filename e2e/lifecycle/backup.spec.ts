import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { runAdmin, runAdminRaw } from '../support/fixtures';
import { freshDataDir, removeDataDirs, startServer } from '../support/server';

/*
 * Backup and restore of the embedded database (design §12): taken through the running server while
 * it serves, restored into an empty data directory only, refused when the secret key does not match
 * (or is missing), and the restored installation serves the same credentials and encrypted secrets.
 */
test.afterAll(removeDataDirs);

test('backup while serving; restore into an empty directory with the right key only; the restored server answers as before', async () => {
  test.setTimeout(120_000);
  const a = freshDataDir();
  const server = await startServer(a, { TRIAD_GUIDE_DELAY_MS: '0' });
  const files = path.join(a, '..', `backups-${path.basename(a)}`);
  fs.mkdirSync(files, { recursive: true });
  const withKey = path.join(files, 'with-key.triad');
  const withoutKey = path.join(files, 'without-key.triad');
  let apiKey = '';
  try {
    const { org_id } = await runAdmin({ TRIAD_DATA_DIR: a }, ['org', 'create', '--name', 'Backed up']);
    apiKey = (await runAdmin({ TRIAD_DATA_DIR: a }, ['apikey', 'create', '--org', org_id!, '--rpm', '100000'])).api_key!;
    // Traffic goes on while the backups are taken.
    let running = true;
    const statuses: number[] = [];
    const traffic = (async () => {
      while (running) {
        const r = await fetch(`${server.url}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'backup' }], max_tokens: 5 }),
        });
        statuses.push(r.status);
        await r.arrayBuffer();
      }
    })();
    const made = await runAdmin({ TRIAD_DATA_DIR: a }, ['backup', '--out', withKey, '--include-key']);
    const plain = await runAdmin({ TRIAD_DATA_DIR: a }, ['backup', '--out', withoutKey]);
    running = false;
    await traffic;
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(made).toMatchObject({
      format: 'triad-backup/1',
      driver: 'pglite',
      last_migration: expect.stringMatching(/^\d{4}_/),
      includes_key: true,
    });
    expect(plain).toMatchObject({ includes_key: false, secret_key_fingerprint: made.secret_key_fingerprint });
    expect(JSON.stringify(made)).not.toContain(fs.readFileSync(path.join(a, 'secret.key'), 'utf8').trim());
    expect(fs.statSync(withKey).mode & 0o777).toBe(0o600);
    const again = await runAdminRaw({ TRIAD_DATA_DIR: a }, ['backup', '--out', withKey]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('exists');
  } finally {
    await server.stop();
  }
  const key = fs.readFileSync(path.join(a, 'secret.key'), 'utf8').trim();
  const demo = JSON.parse(fs.readFileSync(path.join(a, 'demo-credentials.json'), 'utf8')) as { api_key: string };

  // Refused: no key anywhere, a wrong key, a directory that is not empty.
  const b = freshDataDir();
  const noKey = await runAdminRaw({ TRIAD_DATA_DIR: b, TRIAD_SECRET_KEY: '' }, ['restore', '--from', withoutKey]);
  expect(noKey.code).not.toBe(0);
  expect(noKey.stderr).toContain('holds no secret key');
  const wrong = await runAdminRaw({ TRIAD_DATA_DIR: b, TRIAD_SECRET_KEY: 'ab'.repeat(32) }, ['restore', '--from', withKey]);
  expect(wrong.stderr).toContain('does not match');
  expect(fs.existsSync(path.join(b, 'pglite'))).toBe(false);
  expect(await runAdmin({ TRIAD_DATA_DIR: b, TRIAD_SECRET_KEY: '' }, ['restore', '--from', withKey])).toMatchObject({
    key: 'written to the data directory',
  });
  const full = await runAdminRaw({ TRIAD_DATA_DIR: b, TRIAD_SECRET_KEY: '' }, ['restore', '--from', withKey]);
  expect(full.stderr).toContain('not empty');

  // The restored installation: the API key made before the backup works; the encrypted demo credentials decrypt.
  const restored = await startServer(b, { TRIAD_GUIDE_DELAY_MS: '0' });
  try {
    const chat = await fetch(`${restored.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
    });
    expect(chat.status).toBe(200);
    expect(await runAdmin({ TRIAD_DATA_DIR: b }, ['demo'])).toMatchObject({ api_key: demo.api_key });
  } finally {
    await restored.stop();
  }

  // A backup without its key restores with TRIAD_SECRET_KEY set to it.
  const c = freshDataDir();
  expect(await runAdmin({ TRIAD_DATA_DIR: c, TRIAD_SECRET_KEY: key }, ['restore', '--from', withoutKey])).toMatchObject({
    key: 'TRIAD_SECRET_KEY',
  });
  fs.rmSync(files, { recursive: true, force: true });
});
