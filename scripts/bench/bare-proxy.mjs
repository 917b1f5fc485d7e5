// The floor of any Node.js proxy, for `npm run bench:chat` and `bench:chat-ab`: node:http in, the body
// read, one kept-alive node:http request to the model server, its reply piped back as it comes (a
// stream's events as they are written). No auth, no parsing, no accounting.
//   node scripts/bench/bare-proxy.mjs --port 3400 --upstream http://127.0.0.1:3295/v1
import http from 'node:http';

const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1]);
const upstream = new URL(`${args[args.indexOf('--upstream') + 1]}/chat/completions`);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const read = (stream, done) => {
  const parts = [];
  stream.on('data', (d) => parts.push(d));
  stream.on('end', () => done(Buffer.concat(parts)));
};

http
  .createServer((req, res) => {
    read(req, (body) => {
      const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
      const out = http.request(upstream, { method: 'POST', agent, headers }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, { 'content-type': reply.headers['content-type'] ?? 'application/json' });
        reply.pipe(res);
      });
      out.on('error', () => res.destroy());
      out.end(body);
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`bare proxy on http://127.0.0.1:${port}`));
