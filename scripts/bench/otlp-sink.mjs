// A collector that takes OTLP over HTTP and drops it, answering at once — for measuring what exporting
// traces costs Triad (docs/benchmarks.md): `node scripts/bench/otlp-sink.mjs --port 4318`, then
// `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 npm run bench:chat-ab -- <another checkout>`.
// Prints, every 10 s, how many exports and bytes it was sent.
import http from 'node:http';

const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1] || 4318);
let exports = 0;
let bytes = 0;
http
  .createServer((req, res) => {
    req.on('data', (d) => (bytes += d.length));
    req.on('end', () => {
      exports++;
      const json = String(req.headers['content-type']).includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`otlp sink on ${port}`));
setInterval(() => console.log(`exports ${exports}, ${(bytes / 1e6).toFixed(1)} MB`), 10_000).unref();
