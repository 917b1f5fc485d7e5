import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { readAdminSecret } from '../../lib/auth/admin-secret';
import type { RunningServer } from '../../scripts/lib/server';

const root = path.resolve(import.meta.dirname, '../..');

/** A fake OpenAI-compatible model server (scripts/fake-upstream.mjs) on a real socket, in a process of its own (so that it can be killed). */
export type FakeServer = {
  port: number;
  url: string;
  proc: ChildProcess;
  kill(): Promise<void>;
  log(): Promise<{ probes: number; rate_limited: number }>;
};

/** `args`: more of the fake's options (`--latency-ms 150`: fake-fixed answers after that long). */
export async function startFake(port: number, args: string[] = []): Promise<FakeServer> {
  const proc = spawn(process.execPath, [path.join(root, 'scripts/fake-upstream.mjs'), '--port', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('fake upstream on') && resolve());
    proc.on('exit', () => reject(new Error(`fake upstream on ${port} exited`)));
  });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  return {
    port,
    url: `http://127.0.0.1:${port}/v1`,
    proc,
    kill: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
    log: async () => (await (await fetch(`http://127.0.0.1:${port}/__log`)).json()) as { probes: number; rate_limited: number },
  };
}

/** Calls the admin API of a running server with its admin secret. */
export async function adminApi(server: RunningServer, method: string, pathname: string, body?: unknown) {
  const res = await fetch(`${server.url}/api/admin${pathname}`, {
    method,
    headers: { authorization: `Bearer ${readAdminSecret(server.dataDir)}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: Record<string, unknown>; error?: { message: string; detail?: string } },
  };
}

/** One chat completion: its status, the provider that served it, and its text (streamed or whole). */
export async function chat(server: RunningServer, apiKey: string, model: string, opts: { stream?: boolean; content?: string } = {}) {
  const res = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: !!opts.stream, messages: [{ role: 'user', content: opts.content ?? 'hi' }] }),
  });
  const provider = res.headers.get('x-triad-provider');
  const text = await res.text();
  if (!opts.stream || res.status !== 200)
    return { status: res.status, provider, text, body: JSON.parse(text) as Record<string, unknown>, headers: res.headers };
  const events = text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
  const content = events
    .filter((e) => e !== '[DONE]')
    .map((e) => JSON.parse(e) as { choices?: { delta?: { content?: string } }[]; error?: unknown })
    .map((e) => e.choices?.[0]?.delta?.content ?? '')
    .join('');
  const error = events.some((e) => e.startsWith('{"error"'));
  return { status: res.status, provider, text: content, error, done: events.at(-1) === '[DONE]', headers: res.headers };
}
