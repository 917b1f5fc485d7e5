import pg from 'pg';

/*
 * For tests, benchmarks and the crash test: a database of their own on a PostgreSQL server (the one
 * `base` names), dropped again when they are done — with any connections still open to it.
 */

export type FreshDatabase = { url: string; drop: () => Promise<void> };

/** Creates a new database named `<prefix>_<pid>_<time>_<random>`; its URL and how to drop it. */
export async function freshDatabase(base: string, prefix: string): Promise<FreshDatabase> {
  const name = `${prefix}_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } catch (e) {
    await admin.end();
    throw e;
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await admin.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** Runs `fn` with the URL of a new database, and drops it afterwards. */
export async function withFreshDatabase<T>(base: string, prefix: string, fn: (url: string) => Promise<T>): Promise<T> {
  const db = await freshDatabase(base, prefix);
  try {
    return await fn(db.url);
  } finally {
    await db.drop();
  }
}
