import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
/** A script run as `npm run <name> -- …` runs it (in `env`, when given): its exit status and what it printed. */
const run = (script: string, args: string[], env?: NodeJS.ProcessEnv) => {
  const command = script.endsWith('.mjs') ? process.execPath : tsx;
  const r = spawnSync(command, [path.join(root, 'scripts', script), ...args], { cwd: root, encoding: 'utf8', timeout: 30_000, env });
  return { status: r.status, out: r.stdout, err: r.stderr };
};

// Each of these would otherwise start something long (a half-hour soak, a browser, a fleet's history, servers, a package).
describe("the developer scripts' options", () => {
  it.each([
    ['soak.ts', 'npm run soak -- '],
    ['screenshots.ts', 'npm run screenshots -- '],
    ['simulate.ts', 'npm run simulate -- '],
    ['start-cluster.mjs', 'npm run start:cluster -- '],
    ['fake-upstream.mjs', 'node scripts/fake-upstream.mjs '],
    ['package.mjs', 'npm run package '],
    ['crash-test.ts', 'npm run test:crash '],
  ])('%s --help prints its usage and starts nothing', (script, usage) => {
    const r = run(script, ['--help']);
    expect(r.status).toBe(0);
    expect(r.out.startsWith(`usage: ${usage}`)).toBe(true);
    expect(r.err).toBe('');
  });

  it('a mistyped option is refused with the usage, before anything starts', () => {
    const soak = run('soak.ts', ['--minute', '1']);
    expect(soak.status).toBe(2);
    expect(soak.err).toContain("Unknown option '--minute'");
    expect(soak.err).toContain('usage: npm run soak --');
    expect(soak.out).toBe(''); // no table: no server was started

    expect(run('soak.ts', ['--minutes', 'ten'])).toMatchObject({ status: 2, err: '--minutes must be a positive number (got ten)\n' });

    const shots = run('screenshots.ts', ['--ur', 'http://127.0.0.1:1']);
    expect(shots.status).toBe(2);
    expect(shots.err).toContain('usage: npm run screenshots --');

    const simulate = run('simulate.ts', ['--nodez', '3']);
    expect(simulate.status).toBe(2);
    expect(simulate.err).toMatch(/^Unknown option '--nodez'.*\n\nusage: npm run simulate -- /);
    expect(simulate.err).not.toMatch(/\n\s+at /); // no stack
    // A count as digits only: '1e3' is not taken for a thousand nodes (nor '0x10' for sixteen days).
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-simulate-'));
    try {
      const env = { ...process.env, TRIAD_DATA_DIR: dataDir };
      expect(run('simulate.ts', ['--nodes', '1e3'], env)).toMatchObject({
        status: 2,
        err: '--nodes must be a whole number from 1 to 100000 (got 1e3)\n',
      });
      expect(run('simulate.ts', ['--days', '0x10'], env)).toMatchObject({
        status: 2,
        err: '--days must be a whole number from 1 to 3650 (got 0x10)\n',
      });
      expect(fs.readdirSync(dataDir)).toEqual([]); // refused before any database was opened
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }

    // Given DATABASE_URL and the key, a mistyped option would otherwise have started two servers.
    const cluster = run('start-cluster.mjs', ['--instance', '3'], {
      ...process.env,
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
      TRIAD_SECRET_KEY: 'a'.repeat(64),
    });
    expect(cluster.status).toBe(2);
    expect(cluster.err).toContain("Unknown option '--instance'");
    // Nor is '1e1' ten servers.
    expect(
      run('start-cluster.mjs', ['--instances', '1e1'], {
        ...process.env,
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
        TRIAD_SECRET_KEY: 'a'.repeat(64),
      }),
    ).toMatchObject({
      status: 2,
      out: '',
      err: '--instances must be a whole number above 0 (got 1e1)\n',
    });

    // Those that take none say so rather than write a package or kill servers.
    expect(run('package.mjs', ['--out', '/tmp/elsewhere'])).toMatchObject({ status: 2, out: '' });
    expect(run('crash-test.ts', ['--fast'])).toMatchObject({ status: 2, out: '' });
  });
});
