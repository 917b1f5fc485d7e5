import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * The build's template of a new embedded cluster (scripts/pglite-template.mjs): PGlite's own
 * gzipped tarball of a cluster with every migration applied. Written out by hand here (a tar is
 * 512-byte headers and padded contents), which takes a fraction of a second, where PGlite's initdb
 * takes about seven: no PGlite instance is started to make a new data directory.
 */
export const pgliteTemplate = path.join(process.cwd(), '.next', 'triad', 'pglite-template.tar.gz');

const BLOCK = 512;

/** Writes the directories and files of a gzipped ustar archive (PGlite's dumpDataDir) into `dir`. */
export function extractTemplate(tarball: Buffer, dir: string): void {
  // Inflated in pieces of 1 MiB, above malloc's mmap threshold (npm start's MALLOC_MMAP_THRESHOLD_): with
  // zlib's default 16 KiB pieces the 40 MB of the archive went through the process's heap and stayed
  // resident after it was freed (a first start idled 40 MB above a second; npm run bench:memory).
  const tar = gunzipSync(tarball, { chunkSize: 1 << 20 });
  fs.mkdirSync(dir, { recursive: true });
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break; // the end-of-archive blocks
    const text = (from: number, length: number) => header.toString('latin1', from, from + length).replace(/\0.*$/s, '');
    const octal = (from: number, length: number) => parseInt(text(from, length).trim() || '0', 8);
    const name = [text(345, 155), text(0, 100)].filter(Boolean).join('/');
    const size = octal(124, 12);
    const mode = octal(100, 8) & 0o777;
    const type = String.fromCharCode(header[156]!);
    const target = path.join(dir, ...name.split('/').filter((part) => part && part !== '.'));
    // Paths are the cluster's own (PGlite writes them); one leading outside `dir` would be a damaged template.
    if (!target.startsWith(dir + path.sep)) throw new Error(`the embedded database's template names ${name}, outside the cluster`);
    at += BLOCK;
    if (type === '5') fs.mkdirSync(target, { recursive: true, mode: mode || 0o700 });
    else if (type === '0' || type === '\0') {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, tar.subarray(at, at + size), { mode: mode || 0o600 });
    } else throw new Error(`the embedded database's template holds an entry of tar type ${JSON.stringify(type)} (${name})`);
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
}
