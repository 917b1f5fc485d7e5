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

/** Says what is wrong with the options and exits 2, as for an unknown option: before the script starts anything. */
export function refuse(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/**
 * A number above 0 given as an option's text (`fallback` when it is absent), at most `max`, or exit 2 saying
 * which. A `whole` one is digits only: Number() would also take '1e3' and '0x10'.
 */
export function positiveNumber(name, text, fallback, { whole = false, max = Infinity } = {}) {
  const v = text === undefined ? fallback : whole && !/^\d+$/.test(text) ? NaN : Number(text);
  if (Number.isFinite(v) && v > 0 && v <= max && (!whole || Number.isInteger(v))) return v;
  const range = max < Infinity ? (whole ? `from 1 to ${max}` : `up to ${max}`) : whole ? 'above 0' : '';
  refuse(`--${name} must be a ${whole ? 'whole' : 'positive'} number${range ? ` ${range}` : ''} (got ${text})`);
}
