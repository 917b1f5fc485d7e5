import http from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * An OpenTelemetry collector for the tests: OTLP over HTTP on a real socket (POST /v1/traces), in both
 * encodings Triad exports — http/json and http/protobuf (decoded here from the wire format, so that the
 * test reads what a real collector would) — keeping every span it is sent.
 */
export type CollectedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  service: string;
};

export type Collector = {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the process that exports. */
  endpoint: string;
  spans: CollectedSpan[];
  /** The content types the exports came as. */
  contentTypes: Set<string>;
  close(): Promise<void>;
};

export async function startCollector(): Promise<Collector> {
  const spans: CollectedSpan[] = [];
  const contentTypes = new Set<string>();
  const server = http.createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req as AsyncIterable<Buffer>) parts.push(part);
    const body = Buffer.concat(parts);
    const type = String(req.headers['content-type'] ?? '');
    contentTypes.add(type);
    if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
    spans.push(...(type.includes('json') ? fromJson(JSON.parse(body.toString('utf8'))) : fromProtobuf(body)));
    res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' });
    res.end(type.includes('json') ? '{}' : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type JsonValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: JsonValue[] };
};
const jsonValue = (v: JsonValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  v.boolValue ??
  (v.arrayValue ? (v.arrayValue.values ?? []).map(jsonValue) : undefined);
const jsonAttributes = (list: { key: string; value: JsonValue }[] = []) => Object.fromEntries(list.map((a) => [a.key, jsonValue(a.value)]));

function fromJson(request: {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: JsonValue }[] };
    scopeSpans?: { spans?: Record<string, unknown>[] }[];
  }[];
}): CollectedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const service = String(jsonAttributes(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: String(s.traceId),
        spanId: String(s.spanId),
        parentSpanId: String(s.parentSpanId ?? ''),
        name: String(s.name),
        kind: Number(s.kind),
        attributes: jsonAttributes(s.attributes as { key: string; value: JsonValue }[]),
        status: Number((s.status as { code?: number } | undefined)?.code ?? 0),
        service,
      })),
    );
  });
}

/** The fields of one protobuf message: field number → its values (varints and fixed as numbers, length-delimited as bytes). */
function fields(buf: Buffer): Map<number, (number | bigint | Buffer)[]> {
  const out = new Map<number, (number | bigint | Buffer)[]>();
  let i = 0;
  const varint = (): bigint => {
    let shift = 0n;
    let value = 0n;
    for (;;) {
      const b = buf[i++]!;
      value |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return value;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const [field, wire] = [tag >>> 3, tag & 7];
    let value: number | bigint | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 1 || wire === 2 || wire === 5) {
      const length = wire === 1 ? 8 : wire === 5 ? 4 : Number(varint());
      value = buf.subarray(i, i + length);
      i += length;
    } else throw new Error(`protobuf wire type ${wire} not expected`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}
const bytes = (m: Map<number, unknown[]>, n: number) => (m.get(n)?.[0] as Buffer | undefined) ?? Buffer.alloc(0);
const messages = (m: Map<number, unknown[]>, n: number) => ((m.get(n) ?? []) as Buffer[]).map(fields);

function anyValue(m: Map<number, (number | bigint | Buffer)[]>): unknown {
  if (m.has(1)) return bytes(m, 1).toString('utf8');
  if (m.has(2)) return m.get(2)![0] === 1n;
  if (m.has(3)) return Number(BigInt.asIntN(64, m.get(3)![0] as bigint));
  if (m.has(4)) return bytes(m, 4).readDoubleLE(0);
  if (m.has(5)) return messages(fields(bytes(m, 5)), 1).map(anyValue);
  return undefined;
}
const protoAttributes = (list: Map<number, (number | bigint | Buffer)[]>[]) =>
  Object.fromEntries(list.map((kv) => [bytes(kv, 1).toString('utf8'), anyValue(fields(bytes(kv, 2)))]));

/** ExportTraceServiceRequest → ResourceSpans (resource, scope_spans) → ScopeSpans (spans) → Span, per opentelemetry-proto. */
function fromProtobuf(body: Buffer): CollectedSpan[] {
  return messages(fields(body), 1).flatMap((rs) => {
    const service = String(protoAttributes(messages(fields(bytes(rs, 1)), 1))['service.name'] ?? '');
    return messages(rs, 2).flatMap((ss) =>
      messages(ss, 2).map((s) => {
        const status = fields(bytes(s, 15));
        return {
          traceId: bytes(s, 1).toString('hex'),
          spanId: bytes(s, 2).toString('hex'),
          parentSpanId: bytes(s, 4).toString('hex'),
          name: bytes(s, 5).toString('utf8'),
          kind: Number(s.get(6)?.[0] ?? 0),
          attributes: protoAttributes(messages(s, 9)),
          status: Number(status.get(3)?.[0] ?? 0),
          service,
        };
      }),
    );
  });
}
