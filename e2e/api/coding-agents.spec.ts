import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { UPSTREAM_PORT } from '../../scripts/lib/test-env.mjs';
import { expect, test } from '../support/fixtures';

/*
 * The coding agents people point at a gateway (design §16), each with a throwaway HOME, completing a
 * prompt whose model calls a tool, against the fake model server's tool-using model (a real socket):
 * Claude Code (`claude -p`, ANTHROPIC_BASE_URL) through the Messages API, and Codex CLI (`codex exec`
 * with a custom model provider whose wire API is `responses`) through the Responses API — also under a
 * GPT-5.5 family name, for which Codex sends its free-text apply_patch tool and its tool search (which finds
 * an MCP server's tools, scripts/fake-mcp-server.mjs, that Codex keeps from such a model until then). The agents
 * come from the npm registry into the git-ignored .tools/agents (once; npm's cache keeps them after).
 */
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const TOOLS = path.join(root, '.tools/agents');
const AGENTS = { claude: '@anthropic-ai/claude-code@2.1.332', codex: '@openai/codex@0.171.0' };
const claudeBin = path.join(TOOLS, 'node_modules/@anthropic-ai/claude-code-linux-x64/claude');
const codexBin = path.join(TOOLS, 'node_modules/@openai/codex/bin/codex.js');

/** Whether `name@version` is what .tools/agents holds (a pin moved on reinstalls it). */
function installed(spec: string): boolean {
  const at = spec.lastIndexOf('@');
  const manifest = path.join(TOOLS, 'node_modules', spec.slice(0, at), 'package.json');
  return fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).version === spec.slice(at + 1);
}

test.describe.configure({ mode: 'serial', timeout: 300_000 });
test.skip(process.arch !== 'x64' || process.platform !== 'linux', 'the agents are installed for linux-x64 here');

test.beforeAll(async () => {
  test.setTimeout(600_000);
  if (fs.existsSync(claudeBin) && fs.existsSync(codexBin) && Object.values(AGENTS).every(installed)) return;
  fs.mkdirSync(TOOLS, { recursive: true });
  await run(
    'npm',
    [
      'install',
      '--prefix',
      TOOLS,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...Object.values(AGENTS),
    ],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
});

/** The request bodies the fake model server received that hold `marker`. */
async function received(marker: string): Promise<{ messages: { role: string; content: unknown }[] }[]> {
  const log = (await (await fetch(`http://127.0.0.1:${UPSTREAM_PORT}/__log`)).json()) as {
    requests: { messages: { role: string; content: unknown }[] }[];
  };
  return log.requests.filter((b) => JSON.stringify(b).includes(marker));
}
const unique = (what: string) => `${what}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const throwaway = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `triad-${name}-`));
const quiet = { DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', NO_COLOR: '1' };

test('Claude Code (claude -p, ANTHROPIC_BASE_URL) completes a prompt whose model calls a tool, through the Messages API', async ({
  admin,
  org,
  baseURL,
}) => {
  const apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '1000'])).api_key!;
  const home = throwaway('claude-home');
  const work = throwaway('claude-work');
  // The tool-using model calls Glob with arguments made from its schema: pattern "pattern" under "path".
  fs.mkdirSync(path.join(work, 'path'));
  fs.writeFileSync(path.join(work, 'path', 'pattern'), 'found me');
  const marker = unique('claude');
  const claude = run(claudeBin, ['-p', `Find the files ${marker}`, '--tools', 'Glob', '--allowedTools', 'Glob', '--max-turns', '4'], {
    cwd: work,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_BASE_URL: `${baseURL}/api`,
      ANTHROPIC_API_KEY: apiKey,
      ANTHROPIC_MODEL: 'fake-agent',
      ANTHROPIC_SMALL_FAST_MODEL: 'fake-echo',
      ...quiet,
    } as unknown as NodeJS.ProcessEnv,
    timeout: 180_000,
  });
  claude.child.stdin?.end();
  const { stdout } = await claude;
  expect(stdout.trim()).toBe('Tool said: path/pattern');
  // Two turns reached the model server: the prompt, then the prompt with the tool's call and result.
  const turns = await received(marker);
  expect(turns.length).toBeGreaterThanOrEqual(2);
  expect(turns.at(-1)!.messages.map((m) => m.role)).toContain('tool');
});

/**
 * `codex exec PROMPT` with a throwaway HOME whose config points a custom model provider (wire API `responses`) at Triad;
 * `config`: more of its config.toml (an MCP server, say).
 */
async function codexExec(baseURL: string, apiKey: string, model: string, prompt: string, config: string[] = []): Promise<string> {
  const home = throwaway('codex-home');
  const work = throwaway('codex-work');
  fs.mkdirSync(path.join(home, '.codex'));
  fs.writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "triad"',
      '',
      '[model_providers.triad]',
      'name = "Triad"',
      `base_url = "${baseURL}/api/v1"`,
      'env_key = "TRIAD_API_KEY"',
      'wire_api = "responses"',
      '',
      ...config,
      '',
    ].join('\n'),
  );
  const codex = run(process.execPath, [codexBin, 'exec', '--skip-git-repo-check', '--sandbox', 'danger-full-access', prompt], {
    cwd: work,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CODEX_HOME: path.join(home, '.codex'),
      TRIAD_API_KEY: apiKey,
    } as unknown as NodeJS.ProcessEnv,
    timeout: 180_000,
  });
  codex.child.stdin?.end(); // the prompt is the argument: nothing more comes on standard input
  return (await codex).stdout;
}

test('Codex CLI (codex exec, a custom model provider speaking responses) completes a prompt whose model calls a tool', async ({
  admin,
  org,
  baseURL,
}) => {
  const apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '1000'])).api_key!;
  const marker = unique('codex');
  const stdout = await codexExec(baseURL!, apiKey, 'fake-agent', `List the files ${marker}`);
  // The model called Codex's command tool; Codex ran it and sent its output back; the model answered with it.
  expect(stdout).toMatch(/^Tool said: /m);
  const turns = await received(marker);
  expect(turns.length).toBeGreaterThanOrEqual(2);
  expect(turns.at(-1)!.messages.map((m) => m.role)).toContain('tool');
});

/**
 * A model of the GPT-5.5 family for `fn`: Codex gives models so named its free-text apply_patch tool and its
 * own tool search; here one is served by the fake model server's tool-using model through Chat Completions.
 */
async function withGpt55Model(
  admin: (args: string[]) => Promise<unknown>,
  baseURL: string,
  apiKey: string,
  fn: (model: string) => Promise<void>,
) {
  const model = `gpt-5.5-e2e-${Date.now().toString(36)}`;
  const provider = `codex-${Date.now().toString(36)}`;
  await admin([
    'provider',
    'add',
    '--name',
    provider,
    '--base-url',
    `http://127.0.0.1:${UPSTREAM_PORT}/v1`,
    '--api-key',
    'k',
    '--models',
    model,
  ]);
  await admin(['provider', 'update', provider, '--renames', `${model}=fake-agent`]);
  try {
    await expect
      .poll(
        async () =>
          JSON.stringify(await (await fetch(`${baseURL}/api/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } })).json()),
        { timeout: 15_000 },
      )
      .toContain(model);
    await fn(model);
  } finally {
    await admin(['provider', 'remove', provider]);
  }
}

test('Codex CLI with a model of the GPT-5.5 family: its apply_patch (a custom tool) called and answered through a Chat provider', async ({
  admin,
  org,
  baseURL,
}) => {
  const apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '1000'])).api_key!;
  await withGpt55Model(admin, baseURL!, apiKey, async (model) => {
    const marker = unique('codex-patch');
    const stdout = await codexExec(baseURL!, apiKey, model, `Patch the files [tool:apply_patch] ${marker}`);
    // The model's call reached Codex as a custom_tool_call of apply_patch (its input "input", not a patch
    // Codex can apply); Codex answered with the tool's output, and the model with that.
    expect(stdout).toMatch(/^Tool said: /m);
    const last = (await received(marker)).at(-1)! as unknown as {
      tools: { function: { name: string } }[];
      messages: { role: string; tool_calls?: { function: { name: string; arguments: string } }[] }[];
    };
    expect(last.tools.map((t) => t.function.name)).toContain('apply_patch');
    const call = last.messages.flatMap((m) => m.tool_calls ?? []).at(-1)!;
    expect(call.function).toEqual({ name: 'apply_patch', arguments: JSON.stringify({ input: 'input' }) });
    expect(last.messages.at(-1)!.role).toBe('tool');
  });
});

test('Codex CLI with a model of the GPT-5.5 family finds an MCP server’s tool with its tool search, through a Chat provider', async ({
  admin,
  org,
  baseURL,
}) => {
  const apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '1000'])).api_key!;
  const mcp = path.join(root, 'scripts/fake-mcp-server.mjs');
  await withGpt55Model(admin, baseURL!, apiKey, async (model) => {
    const marker = unique('codex-search');
    // Codex keeps an MCP server's tools from such a model until its tool search finds them: the model searches
    // (the query "query", which the CRM tool's description holds), Codex answers with the tools it found.
    const stdout = await codexExec(baseURL!, apiKey, model, `Ask the CRM [tool:tool_search] ${marker}`, [
      '[mcp_servers.crm]',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(mcp)}]`,
    ]);
    const turns = (await received(marker)) as unknown as {
      tools: { function: { name: string } }[];
      messages: { role: string; content: unknown }[];
    }[];
    expect(turns[0]!.tools.map((t) => t.function.name)).toContain('tool_search');
    expect(JSON.stringify(turns[0]!.tools)).not.toContain('lookup');
    // The next turn offers the tool found, and tells the model so.
    const last = turns.at(-1)!;
    const found = last.tools.map((t) => t.function.name).find((n) => n.endsWith('lookup'));
    expect(found).toBeTruthy();
    expect(last.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: expect.any(String), content: expect.stringContaining(found!) });
    expect(stdout).toContain(`Tool said: Tools loaded, to be called from now on: ${found}`);
  });
});
