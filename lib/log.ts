import { config } from '@/lib/config';

/** Structured JSON log lines on stdout. Never pass a secret, token or key in `fields`. */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, 'silent'>;

function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  let threshold: number = LEVELS.info;
  try {
    threshold = LEVELS[config().TRIAD_LOG_LEVEL];
  } catch {
    // a bad configuration is reported elsewhere; log at the default level meanwhile
  }
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
