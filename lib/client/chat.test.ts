import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type ChatBody, curlCommand, pythonCode, typescriptCode } from './chat';

const body: ChatBody = {
  model: 'triad-guide',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'it\'s "quoted", \\ and $HOME — ünïcode' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'done' },
  ],
  temperature: 0.5,
  top_p: 0.9,
  stop: ['END'],
  seed: 7,
  tools: [
    {
      type: 'function',
      function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false } },
    },
  ],
  response_format: { type: 'json_object' },
};

describe('code export', () => {
  it('curl: a shell command whose body is the conversation, quotes included, without the key', () => {
    const cmd = curlCommand('http://localhost:3000', body);
    expect(cmd).toContain('Authorization: Bearer $TRIAD_API_KEY');
    // Let a real shell parse the -d argument back.
    const data = cmd.slice(cmd.indexOf("-d '") + 3);
    const parsed = execFileSync('bash', ['-c', `printf %s ${data}`]).toString();
    expect(JSON.parse(parsed)).toEqual({ ...body, stream: true });
  });

  it('Python: a program Python parses, calling create() with the conversation as its arguments and the key from the environment', () => {
    const code = pythonCode('http://localhost:3000', body);
    expect(code).toContain('api_key=os.environ["TRIAD_API_KEY"]');
    expect(code).toContain('base_url="http://localhost:3000/api/v1"');
    // Python's own parser reads the program; the arguments of create() are read back as literals.
    const read = `
import ast, json, sys
tree = ast.parse(sys.stdin.read())
call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "create")
print(json.dumps({k.arg: ast.literal_eval(k.value) for k in call.keywords}))`;
    const args = JSON.parse(execFileSync('python3', ['-c', read], { input: code }).toString());
    expect(args).toEqual({ ...body, stream: true });
  });

  it('TypeScript: the openai package with the conversation as create()’s argument, streamed', () => {
    const code = typescriptCode('http://localhost:3000', body);
    expect(code).toContain("import OpenAI from 'openai';");
    expect(code).toContain("baseURL: 'http://localhost:3000/api/v1', apiKey: process.env.TRIAD_API_KEY");
    const literal = code.slice(code.indexOf('create(') + 7, code.lastIndexOf(');\nfor await'));
    // The argument as JavaScript reads it (an object literal, not JSON: it ends with a comma).
    expect(new Function(`return ${literal}`)()).toEqual({ ...body, stream: true });
  });
});
