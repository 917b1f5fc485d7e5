import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nodeFlags, SERVER_ENV } from './server-args.mjs';

/*
 * The container recipe (Dockerfile, compose.yaml) cannot be built on these machines (no container
 * daemon): CI tests the package it is made of (e2e/lifecycle/package.spec.ts). These tests keep the
 * recipe saying what that package needs.
 */
const root = path.resolve(import.meta.dirname, '..');
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

/** The JSON array of an exec-form instruction (`CMD [...]`) of the runtime stage. */
const execForm = (instruction: string) => JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(runtime)![1]!) as string[];

describe('Dockerfile', () => {
  it('builds the package with npm ci && npm run package, and runs it on a slim Node 24 image', () => {
    expect(dockerfile).toMatch(/^FROM node:24-\S*slim AS build$/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm run package$/m);
    expect(runtime).toMatch(/^FROM node:24-\S*slim$/m);
    expect(runtime).toMatch(/^COPY --from=build \/src\/dist\/triad \.\/$/m);
    expect(runtime).not.toMatch(/npm (ci|install|run)/);
  });

  it('starts the server as npm start does: its node flags and environment', () => {
    expect(execForm('CMD')).toEqual(['node', ...nodeFlags('24.0.0'), 'server.js']); // the image's Node 24
    for (const [k, v] of Object.entries(SERVER_ENV)) expect(runtime).toMatch(new RegExp(`\\b${k}=${v}\\b`));
  });

  it('runs as a user that is not root, with the data directory on a volume, listening beyond loopback, with a health check', () => {
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/\bTRIAD_DATA_DIR=\/data\b/);
    expect(runtime).toMatch(/^VOLUME \/data$/m);
    expect(runtime).toMatch(/chown node:node \/data/);
    expect(runtime).toMatch(/\bTRIAD_HOST=0\.0\.0\.0\b/);
    expect(runtime).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \[.*\/api\/health/m);
  });

  it('leaves what the build does not need out of its context', () => {
    const ignored = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['node_modules', '.next', 'dist', 'data', '.git']) expect(ignored).toContain(p);
  });
});

describe('compose.yaml', () => {
  const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; build?: string; command?: string[]; volumes?: string[] }>;
  };
  const triads = Object.entries(compose.services).filter(([, s]) => s.build === '.');

  it('runs two Triad instances on one PostgreSQL, one Redis and one secret key, each reachable by the other', () => {
    expect(triads).toHaveLength(2);
    expect(compose.services.postgres).toBeDefined();
    expect(compose.services.redis).toBeDefined();
    const envs = triads.map(([, s]) => s.environment!);
    for (const env of envs) {
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/triad:.*@postgres:5432\/triad$/);
      expect(env.REDIS_URL).toBe('redis://redis:6379');
      expect(env.TRIAD_SECRET_KEY).toMatch(/^\$\{TRIAD_SECRET_KEY:\?/);
      expect(env.TRIAD_TRUST_PROXY).toBe('1');
    }
    expect(envs.map((e) => e.TRIAD_INTERNAL_URL)).toEqual(triads.map(([name]) => `http://${name}:3000`));
    // Each keeps its own data directory (its admin secret) on a volume of its own.
    expect(new Set(triads.map(([, s]) => s.volumes![0]!.split(':')[0])).size).toBe(2);
  });

  it('puts a reverse proxy in front that passes Host on and sends to both', () => {
    const command = compose.services.proxy!.command!;
    expect(command).not.toContain('--change-host-header');
    for (const [name] of triads) expect(command.join(' ')).toContain(`--to ${name}:3000`);
  });
});
