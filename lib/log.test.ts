import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readableLine, readableLogs } from './log';

describe('log lines', () => {
  it('are read by a person on a terminal, and JSON otherwise or when asked', () => {
    expect(readableLogs('auto', true)).toBe(true);
    expect(readableLogs('auto', false)).toBe(false);
    expect(readableLogs('json', true)).toBe(false);
    expect(readableLogs('text', false)).toBe(true);
  });

  it('show the time, the level, the message and the fields, strings bare unless they hold spaces', () => {
    const line = JSON.stringify({
      level: 30,
      time: '2026-11-25T02:42:35.357Z',
      pid: 6174,
      url: 'http://127.0.0.1:3000',
      directRoutes: ['POST /api/v1/chat/completions'],
      msg: 'ready',
    });
    expect(readableLine(line)).toBe('02:42:35 INFO  ready  url=http://127.0.0.1:3000 directRoutes=["POST /api/v1/chat/completions"]\n');
    expect(readableLine(JSON.stringify({ level: 40, time: '2026-11-25T02:42:35.357Z', pid: 1, msg: 'slow', why: 'a b' }))).toBe(
      '02:42:35 WARN  slow  why="a b"\n',
    );
    expect(readableLine(JSON.stringify({ level: 50, time: '2026-11-25T00:00:00.000Z', msg: 'x' }), true)).toBe(
      '00:00:00 \x1b[31mERROR\x1b[0m x\n',
    );
  });

  it('are JSON when stdout is not a terminal, and readable with TRIAD_LOG_FORMAT=text', () => {
    const script = "import { log } from './lib/log.ts'; log.info('hello', { n: 1 });";
    const run = (format: string) =>
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, TRIAD_LOG_FORMAT: format },
      }).toString();
    expect(JSON.parse(run('auto'))).toMatchObject({ level: 30, msg: 'hello', n: 1 });
    expect(run('text')).toMatch(/^\d\d:\d\d:\d\d INFO  hello  n=1\n$/);
  });
});
