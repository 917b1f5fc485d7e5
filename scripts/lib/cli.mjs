// A script's options, for every script that takes any (or none): the TypeScript ones through tsx and the
// plain .mjs ones alike. Types: ./cli.d.mts.
import { parseArgs } from 'node:util';

/**
 * A script's options (node:util's parseArgs, strict): `--help` or `-h` prints `usage` and exits 0; an
 * unknown option, a missing value or a stray argument prints what is wrong and `usage`, and exits 2 —
 * before the script starts anything (a soak begun by a mistyped flag would run for half an hour).
 */
export function scriptOptions(usage, options = {}, argv = process.argv.slice(2)) {
  let values;
  try {
    values = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true }).values;
  } catch (e) {
    process.stderr.write(`${e.message}\n\n${usage.trim()}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  return values;
}

/** A whole number above 0 given as an option's text (`fallback` when it is absent), or exit 2 saying which. */
export function positiveNumber(name, text, fallback, { whole = false } = {}) {
  const v = text === undefined ? fallback : Number(text);
  if (Number.isFinite(v) && v > 0 && (!whole || Number.isInteger(v))) return v;
  process.stderr.write(`--${name} must be a ${whole ? 'whole number above 0' : 'positive number'} (got ${text})\n`);
  process.exit(2);
}
