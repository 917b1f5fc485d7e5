// Preloaded (`node --import`) by `npm run bench:footprint` into the server and the bare proxy: V8's
// precise coverage with call counts, started at a first SIGUSR2 and written at the next, each time to
// <tmpdir>/triad-footprint-<pid>.json (taking it resets the counts). Nothing else; never in a server
// people run.
import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';
import path from 'node:path';

const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
const file = path.join(os.tmpdir(), `triad-footprint-${process.pid}`);
let started = false;
process.on('SIGUSR2', async () => {
  if (!started) {
    await post('Profiler.enable');
    await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    started = true;
    fs.writeFileSync(`${file}.started`, '');
    return;
  }
  const { result } = await post('Profiler.takePreciseCoverage');
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(result));
  fs.renameSync(`${file}.tmp`, `${file}.json`);
});
