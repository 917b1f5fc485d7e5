import pino from 'pino';
import { config } from '@/lib/config';
import { currentRequest } from '@/lib/observability/context';

/**
 * Logs on stdout (pino): JSON lines, or readable lines when stdout is a terminal (TRIAD_LOG_FORMAT).
 * Never pass a secret, token, key or a query string in `fields`: the access log (lib/server) records
 * paths only, and a test greps a whole run's logs for every secret it used. A line written while a
 * request is served carries its id (`reqId`) and, when it is traced, its trace's (`traceId`): they come
 * from the request context (lib/observability/context.ts).
 */
type Fields = Record<string, unknown>;
let logger: pino.Logger | undefined;

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLOURS: Record<number, string> = { 20: '\x1b[90m', 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[31m' };
const OWN = new Set(['level', 'time', 'pid', 'msg']);

/** Whether lines are written for a person: `text`, or `auto` with a terminal on stdout. */
export const readableLogs = (format: 'auto' | 'json' | 'text', isTTY: boolean) => format === 'text' || (format === 'auto' && isTTY);

/** One JSON log line as a person reads it: `12:04:05 INFO  ready  url=http://… directRoutes=[…]`. */
export function readableLine(json: string, colour = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = Number(entry.level);
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const name = (LEVELS[level] ?? String(level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([k, v]) => !OWN.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ');
  const tinted = colour && COLOURS[level] ? `${COLOURS[level]}${name}\x1b[0m` : name;
  return `${time} ${tinted} ${String(entry.msg ?? '')}${fields ? `  ${fields}` : ''}\n`;
}

function get(): pino.Logger {
  if (!logger) {
    let level = 'info';
    let format: 'auto' | 'json' | 'text' = 'auto';
    try {
      ({ TRIAD_LOG_LEVEL: level, TRIAD_LOG_FORMAT: format } = config());
    } catch {
      // a bad configuration is reported elsewhere; log at the defaults meanwhile
    }
    const destination = readableLogs(format, !!process.stdout.isTTY)
      ? { write: (line: string) => void process.stdout.write(readableLine(line, !!process.stdout.isTTY)) }
      : pino.destination({ sync: true });
    logger = pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, mixin: requestFields }, destination);
  }
  return logger;
}

/** The request being served, as every line written for it names it. */
function requestFields(): object {
  const request = currentRequest();
  if (!request?.requestId) return {};
  const span = request.span;
  return span ? { reqId: request.requestId, traceId: span.spanContext().traceId } : { reqId: request.requestId };
}

export const log = {
  debug: (msg: string, fields?: Fields) => get().debug(fields ?? {}, msg),
  info: (msg: string, fields?: Fields) => get().info(fields ?? {}, msg),
  warn: (msg: string, fields?: Fields) => get().warn(fields ?? {}, msg),
  error: (msg: string, fields?: Fields) => get().error(fields ?? {}, msg),
  /** Said whatever TRIAD_LOG_LEVEL is (the server's `ready`: scripts and tests wait for it). */
  announce: (msg: string, fields?: Fields) =>
    get()
      .child({}, { level: 'info' })
      .info(fields ?? {}, msg),
};
