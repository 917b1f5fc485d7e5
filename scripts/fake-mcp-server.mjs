// A Model Context Protocol server over stdio (newline-delimited JSON-RPC 2.0), as a coding agent starts one:
// one tool, `lookup`, that answers with what it was asked. For the coding agents' tests (e2e/api/coding-agents.spec.ts).
import readline from 'node:readline';

const tool = {
  name: 'lookup',
  description: 'Answers a query about a customer of the CRM',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};
const answer = (id, result) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = message;
  if (id === undefined) return; // a notification
  if (method === 'initialize')
    answer(id, {
      protocolVersion: params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'crm', version: '1.0.0' },
    });
  else if (method === 'tools/list') answer(id, { tools: [tool] });
  else if (method === 'tools/call')
    answer(id, { content: [{ type: 'text', text: `Customer found for ${JSON.stringify(params?.arguments ?? {})}` }] });
  else process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `no method ${method}` } })}\n`);
});
