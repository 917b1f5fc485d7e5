import fs from 'node:fs';
import path from 'node:path';

/**
 * PGlite's file-system bundle as its `fsBundle` option takes it (an object whose arrayBuffer() gives the
 * bundle's bytes), from the build's trimmed copy (scripts/pglite-files.mjs): the files the server's
 * PostgreSQL can read at their places, in a buffer of the bundle's full size whose other pages (initdb's
 * inputs, encoding conversions, ICU's collations) are zero and never written, so never resident. PGlite's
 * files are views of this buffer for the life of the database: 1.6 MB of memory where its own bundle, read
 * whole, held 6.2. Undefined without the copy (a build by other means): PGlite reads its own bundle.
 */
export function trimmedFsBundle(): Blob | undefined {
  let data: Buffer;
  try {
    // The path spelt out under process.cwd(): the build traces this file only (a path held in a variable
    // makes Next trace the whole project into its output; see lib/providers/guide.ts).
    data = fs.readFileSync(path.join(process.cwd(), '.next', 'triad', 'pglite-files.bin'));
  } catch {
    return undefined;
  }
  return layOut(data, 'pglite-files.bin');
}

/** The bundle laid out from a trimmed copy's bytes (`data`, read from `name`). */
export function layOut(data: Buffer, name: string): Blob {
  const end = data.indexOf(10);
  const { size, segments } = JSON.parse(data.toString('utf8', 0, end)) as { size: number; segments: [number, number][] };
  // Zero-filled by the allocator: a block this large is a fresh mapping of its own, untouched until written.
  const bundle = new Uint8Array(size);
  let at = end + 1;
  for (const [offset, length] of segments) {
    bundle.set(data.subarray(at, at + length), offset);
    at += length;
  }
  if (at !== data.length) throw new Error(`${name} is damaged (${data.length - at} bytes beyond its segments): build again`);
  // PGlite calls nothing but arrayBuffer() on its fsBundle; a Blob would copy the buffer, writing every page.
  return { size, arrayBuffer: async () => bundle.buffer } as unknown as Blob;
}
