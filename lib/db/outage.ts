/*
 * Whether an error means the database cannot be reached (stopped, restarting, the network gone),
 * rather than a fault in the request or the code. Drizzle wraps the driver's error in `cause`.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** PostgreSQL SQLSTATEs: connection exceptions (08…), shutting down or starting (57P01–57P03). */
const SERVER_CODES = /^(08...|57P0[123])$/;
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)|Connection ended|Cannot use a pool after calling end/i;

export function isDatabaseDown(e: unknown): boolean {
  for (let err = e as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; err && depth < 5; depth++) {
    if (typeof err.code === 'string' && (NETWORK_CODES.has(err.code) || SERVER_CODES.test(err.code))) return true;
    if (typeof err.message === 'string' && MESSAGES.test(err.message)) return true;
    err = err.cause as typeof err;
  }
  return false;
}
