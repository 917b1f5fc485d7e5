// `npm run bench:aliases`: alias retrieve (public, passcode, JWT) and create against the trivial
// route of the same server, in one run, on a fresh embedded store. Prints a table; asserts nothing.
import { SignJWT } from 'jose';
import { runAdmin } from '../lib/admin-cli';
import { load, printTable, type LoadResult } from '../lib/load';
import { freshDataDir, removeDataDirs, startServer } from '../lib/server';
import { buildIfNeeded } from '../build-if-needed.mjs';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

async function main() {
  buildIfNeeded();
  const dataDir = freshDataDir();
  // The per-token and per-address limits (60/s and 100/s by default) would measure the limiter, not the endpoint.
  const server = await startServer(dataDir, {
    TRIAD_LINK_RATE_PER_S: '1000000',
    TRIAD_ADDRESS_RATE_PER_S: '1000000',
    TRIAD_DEMO: '0',
    TRIAD_LOG_LEVEL: 'warn',
  });
  try {
    const { org_token } = await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['org', 'create', '--name', 'Bench']);
    const secret = 'bench-secret-of-at-least-32-bytes!!';
    const create = async (body: object) => {
      const res = await fetch(`${server.url}/organization/api/v1/alias/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'live', expired_at: Math.floor(Date.now() / 1000) + 86_400, ...body }),
      });
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    const pub = await create({ name: 'public' });
    const pass = await create({ passcode: '123456' });
    const jwtId = await create({ jwt_secret: secret });
    const jwt = await new SignJWT({ alias: jwtId, user_id: 'bench', host: false, expires_in: 3600 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .sign(new TextEncoder().encode(secret));

    const base = { connections, seconds };
    // Warm up every route once so that first-request compilation is not measured.
    for (const path of ['/api/ping', `/organization/api/v1/alias/${pub}`]) await load('warm-up', { url: server.url + path, seconds: 1 });
    const rows: LoadResult[] = [];
    const trivial = await load('trivial route (GET /api/ping)', { ...base, url: `${server.url}/api/ping` });
    rows.push(trivial);
    rows.push(await load('retrieve public', { ...base, url: `${server.url}/organization/api/v1/alias/${pub}` }));
    rows.push(await load('retrieve passcode', { ...base, url: `${server.url}/organization/api/v1/alias/${pass}?passcode=123456` }));
    rows.push(
      await load('retrieve JWT', {
        ...base,
        url: `${server.url}/organization/api/v1/alias/${jwtId}`,
        headers: { authorization: `Bearer ${jwt}` },
      }),
    );
    rows.push(
      await load('create', {
        ...base,
        url: `${server.url}/organization/api/v1/alias/create`,
        method: 'POST',
        headers: { authorization: `Bearer ${org_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'conference', passcode: 'pass-p', expired_at: Math.floor(Date.now() / 1000) + 86_400 }),
      }),
    );
    console.log(`\nbench:aliases — embedded PGlite, ${connections} connections, ${seconds} s per scenario, node ${process.version}\n`);
    printTable(rows, trivial);
    const jwtRow = rows.find((r) => r.name === 'retrieve JWT')!;
    console.log(`\nJWT retrieve: ${Math.round((100 * jwtRow.rps) / trivial.rps)} % of the trivial route (target ≥ 60 %)`);
  } finally {
    await server.stop();
    removeDataDirs();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
