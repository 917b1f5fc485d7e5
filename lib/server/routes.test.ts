import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { refusalBody } from '@/lib/http/request-guard';
import { openApiDocument } from '@/lib/openapi';
import { definitionAt, loadRoutes, METHODS, routeAt, ROUTES } from './routes';

/*
 * The route table against the route files: every app/**\/route.ts is in it under its path, every
 * method a route file exports is in the OpenAPI document built from it (but the framework's floor,
 * /api/ping, which is no API), and every documented operation is served by a route file, but the node
 * agents' WebSocket, which Triad's server upgrades before Next (lib/tunnel/server.ts).
 */
const root = path.resolve(import.meta.dirname, '../..');
const routeFiles = fs
  .readdirSync(path.join(root, 'app'), { recursive: true, encoding: 'utf8' })
  .filter((f) => /(^|\/)route\.ts$/.test(f))
  .map((f) => `app/${f}`);
const pathOf = (file: string) => file.slice('app'.length, -'/route.ts'.length).replace(/\[(\w+)\]/g, '{$1}');
const exportedMethods = (file: string) =>
  METHODS.filter((m) =>
    new RegExp(`^export (?:(?:const|async function|function) ${m}\\b|\\{ \\w+ as ${m} \\})`, 'm').test(
      fs.readFileSync(path.join(root, file), 'utf8'),
    ),
  );
const UNDOCUMENTED = ['GET /api/ping'];
const UPGRADES = ['GET /api/v1/node/connect'];

describe('route table', () => {
  it('lists every route file once, under the path Next serves it at', () => {
    expect(routeFiles.length).toBeGreaterThan(40);
    expect(ROUTES.map((r) => r.path).sort()).toEqual(routeFiles.map(pathOf).sort());
  });

  it('puts every method of every route file in the OpenAPI document, and documents only what is served', async () => {
    const doc = openApiDocument(await loadRoutes());
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    const served = routeFiles.flatMap((f) => exportedMethods(f).map((m) => `${m} ${pathOf(f)}`));
    expect(served.length).toBeGreaterThan(50);
    expect(documented.sort()).toEqual([...served.filter((op) => !UNDOCUMENTED.includes(op)), ...UPGRADES].sort());
  });

  it('finds the route of a path: a fixed segment before a parameter, none for other paths', () => {
    expect(routeAt('/organization/api/v1/alias/create')?.path).toBe('/organization/api/v1/alias/create');
    expect(routeAt('/organization/api/v1/alias/abc123')?.path).toBe('/organization/api/v1/alias/{id}');
    expect(routeAt('/api/org/partners/p1/nodes/n1')?.path).toBe('/api/org/partners/{id}/nodes/{node}');
    expect(routeAt('/organization/api/v1/alias/')).toBeNull();
    expect(routeAt('/stats/n1')).toBeNull();
  });

  it('gives the request guard the error shape of the route a refused path names', async () => {
    const refusal = async (p: string) => refusalBody(await definitionAt(p), 'why');
    expect(await refusal('/api/v1/chat/completions')).toEqual({
      error: { message: 'Invalid request: why.', type: 'invalid_request_error', code: 'invalid_request' },
    });
    expect(await refusal('/api/v1/models')).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(await refusal('/organization/api/v1/alias/x')).toEqual({ error: { message: 'NOT_FOUND', status: 400, detail: 'why' } });
    expect(await refusal('/organization/api/v1/aliases')).toEqual({ error: { message: 'NOT_FOUND', status: 400, detail: 'why' } });
    expect(await refusal('/api/v1/uptime')).toEqual({ error: { message: 'INVALID_PARAMETERS', status: 400, detail: 'why' } });
    expect(await refusal('/stats/%E0%A4%A')).toEqual({ error: { message: 'INVALID_PARAMETERS', status: 400, detail: 'why' } });
  });
});
