import pino from 'pino';
import { config } from '@/lib/config';

/**
 * Structured JSON logs (pino) on stdout. Never pass a secret, token, key or a query string in
 * `fields`: the access log (scripts/start.mjs) records paths only, and a test greps a whole run's
 * logs for every secret it used.
 */
type Fields = Record<string, unknown>;
let logger: pino.Logger | undefined;

function get(): pino.Logger {
  if (!logger) {
    let level = 'info';
    try {
      level = config().TRIAD_LOG_LEVEL;
    } catch {
      // a bad configuration is reported elsewhere; log at the default level meanwhile
    }
    logger = pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync: true }));
  }
  return logger;
}

export const log = {
  debug: (msg: string, fields?: Fields) => get().debug(fields ?? {}, msg),
  info: (msg: string, fields?: Fields) => get().info(fields ?? {}, msg),
  warn: (msg: string, fields?: Fields) => get().warn(fields ?? {}, msg),
  error: (msg: string, fields?: Fields) => get().error(fields ?? {}, msg),
};

/** The id scripts/start.mjs gave this request (also sent back as X-Request-Id). */
export const requestId = (request: Request) => request.headers.get('x-request-id') ?? undefined;
