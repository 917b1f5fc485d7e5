import { beforeAll, describe, expect, it } from 'vitest';
import { loadRoutes } from '@/lib/server/routes';
import { openApiDocument } from './openapi';

describe('OpenAPI document', () => {
  let doc: ReturnType<typeof openApiDocument>;
  beforeAll(async () => {
    doc = openApiDocument(await loadRoutes(), 'http://localhost:3000');
  });

  it('lists every operation with its auth scheme and error replies (every route: lib/server/routes.test.ts)', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'http://localhost:3000' }]);
    const create = doc.paths['/organization/api/v1/alias/create']!.post as {
      security: unknown;
      responses: Record<string, unknown>;
      requestBody: { content: { 'application/json': { schema: { required: string[]; properties: Record<string, unknown> } } } };
    };
    expect(create.security).toEqual([{ orgToken: [] }, { consoleSession: [] }]);
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', '401', '429']);
    expect(create.requestBody.content['application/json'].schema.required.sort()).toEqual(['expired_at', 'type']);
  });

  it('takes query parameters and bodies from the handlers’ zod schemas', () => {
    const uptime = doc.paths['/api/v1/uptime']!.get as { parameters: { name: string; required: boolean }[] };
    expect(uptime.parameters.map((p) => [p.name, p.required])).toEqual([
      ['secret', true],
      ['partner_node_id', true],
      ['started_at', false],
      ['ended_at', false],
    ]);
    const details = doc.paths['/api/v1/partner/details']!.get as { parameters: { name: string }[] };
    expect(details.parameters.map((p) => p.name)).toContain('partner_node_id[]');
    const chat = doc.paths['/api/v1/chat/completions']!.post as {
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
      responses: Record<string, { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>;
    };
    expect(Object.keys(chat.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['model', 'messages', 'stream', 'temperature']),
    );
    expect(Object.keys(chat.responses['401']!.content['application/json']!.schema!.properties!.error as object)).toBeDefined();
  });

  it('describes every JSON reply with the schema the domain defines (no reply shape written twice)', () => {
    const okSchema = (path: string, method: string) => {
      const op = (
        doc.paths[path] as Record<string, { responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> }>
      )[method]!;
      return Object.values(op.responses)[0]!.content?.['application/json']?.schema as
        { properties?: Record<string, { properties?: Record<string, unknown> }> } | undefined;
    };
    expect(Object.keys(okSchema('/api/v1/partner/summary', 'get')!.properties!.data!.properties!)).toEqual([
      'nodes',
      'connected',
      'total_uptime',
      'unit_shared',
      'usd_earned',
    ]);
    expect(Object.keys(okSchema('/api/v1/uptime/series', 'get')!.properties!.data!.properties!)).toContain('points');
    expect(Object.keys(okSchema('/api/v1/models', 'get')!.properties!)).toEqual(['object', 'data']);
    expect(Object.keys(okSchema('/organization/api/v1/aliases', 'get')!.properties!)).toEqual(['after', 'entries']);
  });

  it('describes the node agents’ WebSocket: the partner secret, 101 or a refusal in the statistics error shape, its frames', () => {
    const connect = doc.paths['/api/v1/node/connect']!.get as {
      security: unknown;
      parameters: { name: string; in: string }[];
      responses: Record<string, { content?: Record<string, { schema: { properties: Record<string, unknown> } }> }>;
      'x-triad-websocket': {
        protocol: string;
        frames: { oneOf: { properties: { t: { const: string } }; required: string[] }[] };
        close_codes: Record<string, number>;
      };
    };
    expect(connect.security).toEqual([{ partnerSecret: [] }]);
    expect(connect.parameters.filter((p) => p.in === 'header').map((p) => p.name)).toEqual(
      expect.arrayContaining(['Upgrade', 'Connection']),
    );
    expect(Object.keys(connect.responses).sort()).toEqual(['101', '401', '403', '426', '429', '503']);
    expect(Object.keys(connect.responses['401']!.content!['application/json']!.schema.properties.error as object)).toBeDefined();
    const ws = connect['x-triad-websocket'];
    expect(ws.protocol).toBe('triad-tunnel.v3');
    const frames = Object.fromEntries(ws.frames.oneOf.map((f) => [f.properties.t.const, f.required]));
    expect(Object.keys(frames)).toEqual(['hello', 'welcome', 'open', 'head', 'data', 'end', 'win', 'cancel', 'fail', 'models', 'drain']);
    expect(frames.hello).toEqual(['t', 'node', 'models', 'max_concurrency', 'window']);
    expect(frames.open).toEqual(['t', 'id']); // version 2's path and headers are optional: an agent of version 1 gets neither
    expect(ws.close_codes.unauthorized).toBe(4401);
  });

  it('gives bodies examples that the routes accept, and each error its meaning and an example in its format', async () => {
    const routes = await loadRoutes();
    const examples = routes.flatMap((r) =>
      r.operations.flatMap((o) => (o.definition?.doc.example !== undefined ? [{ path: r.path, o: o.definition }] : [])),
    );
    expect(examples.map((e) => e.path)).toEqual(
      expect.arrayContaining(['/api/v1/chat/completions', '/api/v1/messages', '/api/v1/responses']),
    );
    for (const { path, o } of examples) expect(o.body!.safeParse(o.doc.example).success, path).toBe(true);

    type Reply = { description: string; content: { 'application/json': { example?: unknown } } };
    const chat = (doc.paths['/api/v1/chat/completions']!.post as { responses: Record<string, Reply> }).responses;
    expect(chat['429']!.description).toContain('Retry-After');
    expect(chat['400']!.content['application/json'].example).toEqual({
      error: {
        message: 'messages: at least one message is required',
        type: 'invalid_request_error',
        code: 'invalid_request',
        param: 'messages',
      },
    });
    const messages = (doc.paths['/api/v1/messages']!.post as { responses: Record<string, Reply> }).responses;
    expect(messages['401']!.content['application/json'].example).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    const uptime = (doc.paths['/api/v1/uptime']!.get as { responses: Record<string, Reply> }).responses;
    expect(uptime['400']!.content['application/json'].example).toMatchObject({ error: { message: 'INVALID_PARAMETERS', status: 400 } });
    // Every documented error status has its meaning, not a bare "Error (NNN)".
    const bare = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.values(ops).flatMap((op) =>
        Object.entries((op as { responses?: Record<string, Reply> }).responses ?? {}).flatMap(([status, r]) =>
          r.description.startsWith('Error (') ? [`${p} ${status}`] : [],
        ),
      ),
    );
    expect(bare).toEqual([]);
    // No integer carries zod's ±2^53 bounds (a renderer shows them as the example).
    expect(JSON.stringify(doc)).not.toContain('9007199254740991');
  });
});
