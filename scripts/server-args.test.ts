import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingFlags, nodeFlags, SERVER_ENV, SERVER_NODE_FLAGS, serverArgs, serverEnv } from './server-args.mjs';

const root = path.resolve(import.meta.dirname, '..');

describe('server node flags', () => {
  it('npm start passes the same flags and environment as every other way of starting the server', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const env = Object.entries(SERVER_ENV)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    expect(scripts.start).toBe(`node scripts/build-if-needed.mjs && ${env} node $(node scripts/server-flags.mjs) .next/triad/server.js`);
    expect(scripts.dev).toContain(`${env} node $(node scripts/server-flags.mjs) .next/triad/server.js --dev`);
    // What the scripts' `$(node scripts/server-flags.mjs)` gives the shell: this node's flags.
    const printed = execFileSync(process.execPath, [path.join(root, 'scripts/server-flags.mjs')]).toString();
    expect(printed).toBe(`${SERVER_NODE_FLAGS.join(' ')}\n`);
    expect(serverEnv({ PORT: '1' })).toEqual({ ...SERVER_ENV, PORT: '1' });
    expect(serverEnv({ MALLOC_MMAP_THRESHOLD_: '65536' }).MALLOC_MMAP_THRESHOLD_).toBe('65536');
    expect(serverArgs('--dev')).toEqual([...SERVER_NODE_FLAGS, path.join(root, '.next/triad/server.js'), '--dev']);
  });

  it('carry AsyncLocalStorage in continuation data on Node 22, as Node 24 does by default (and refuses the flag)', () => {
    const frame = '--experimental-async-context-frame';
    expect(nodeFlags('22.12.0')).toContain(frame);
    expect(nodeFlags('24.0.0')).not.toContain(frame);
    expect(nodeFlags('20.18.1')).not.toContain(frame);
    expect(nodeFlags('24.0.0')).toEqual(['--no-memory-reducer', '--expose-gc', '--max-semi-space-size=16']);
    expect(SERVER_NODE_FLAGS).toEqual(nodeFlags(process.versions.node));
  });

  it("are missing, for the package's launcher, by name: none when all are given, the context flag alone on Node 22 started with the others", () => {
    const node22 = nodeFlags('22.12.0');
    const base = nodeFlags('24.0.0');
    expect(missingFlags(base, node22)).toEqual(['--experimental-async-context-frame']);
    expect(missingFlags(node22, node22)).toEqual([]);
    expect(missingFlags([], base)).toEqual(base);
    // The user's own choices stand: another value, the other way, underscores.
    expect(missingFlags(['--max_semi_space_size=32', '--memory-reducer', '--inspect'], base)).toEqual(['--expose-gc']);
  });

  it('are flags this node accepts (it refuses to start on an unknown one), and give the server gc()', () => {
    const out = execFileSync(process.execPath, [...SERVER_NODE_FLAGS, '-p', 'typeof gc']).toString();
    expect(out.trim()).toBe('function');
  });
});
