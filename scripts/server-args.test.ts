import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS, serverArgs } from './server-args.mjs';

const root = path.resolve(import.meta.dirname, '..');

describe('server node flags', () => {
  it('npm start passes the same flags as every other way of starting the server', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(scripts.start).toBe(`node scripts/build-if-needed.mjs && node ${SERVER_NODE_FLAGS.join(' ')} .next/triad/server.js`);
    expect(scripts.dev).toContain(`node ${SERVER_NODE_FLAGS.join(' ')} .next/triad/server.js --dev`);
    expect(serverArgs('--dev')).toEqual([...SERVER_NODE_FLAGS, path.join(root, '.next/triad/server.js'), '--dev']);
  });

  it('are flags this node accepts (it refuses to start on an unknown one), and give the server gc()', () => {
    const out = execFileSync(process.execPath, [...SERVER_NODE_FLAGS, '-p', 'typeof gc']).toString();
    expect(out.trim()).toBe('function');
  });
});
