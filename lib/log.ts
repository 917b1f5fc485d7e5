import pino from 'pino';
import { config } from '@/lib/config';

/**
 * Structured JSON logs (pino) on stdout. Never pass a secret, token, key or a query string in
 * `fields`: the access log (lib/server) records paths only, and a test greps a whole run's
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
  /** Said whatever TRIAD_LOG_LEVEL is (the server's `ready`: scripts and tests wait for it). */
  announce: (msg: string, fields?: Fields) =>
    get()
      .child({}, { level: 'info' })
      .info(fields ?? {}, msg),
};

/** The id the server (lib/server) gave this request (also sent back as X-Request-Id). */
export const requestId = (request: Request) => request.headers.get('x-request-id') ?? undefined;
