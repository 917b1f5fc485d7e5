import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlCommand } from './chat';

describe('curlCommand', () => {
  it('is a shell command whose body is the conversation, quotes included, without the key', () => {
    const body = { model: 'triad-guide', messages: [{ role: 'user' as const, content: 'it\'s "quoted" and $HOME' }], temperature: 0.5 };
    const cmd = curlCommand('http://localhost:3000', body);
    expect(cmd).toContain('Authorization: Bearer $TRIAD_API_KEY');
    // Let a real shell parse the -d argument back.
    const data = cmd.slice(cmd.indexOf("-d '") + 3);
    const parsed = execFileSync('bash', ['-c', `printf %s ${data}`]).toString();
    expect(JSON.parse(parsed)).toEqual({ ...body, stream: true });
  });
});
