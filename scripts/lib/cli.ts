import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A script's options (node:util's parseArgs, strict): `--help` or `-h` prints `usage` and exits 0; an
 * unknown option, a missing value or a stray argument prints what is wrong and `usage`, and exits 2 —
 * before the script starts anything (a soak begun by a mistyped flag would run for half an hour).
 */
export function scriptOptions<T extends Options>(usage: string, options: T, argv = process.argv.slice(2)) {
  try {
    const { values } = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true });
    if ((values as { help?: boolean }).help) {
      process.stdout.write(`${usage.trim()}\n`);
      process.exit(0);
    }
    return values as ReturnType<typeof parseArgs<{ options: T }>>['values'];
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${usage.trim()}\n`);
    process.exit(2);
  }
}

/** A positive number given as an option's text (`fallback` when it is absent), or exit 2 saying which. */
export function positiveNumber(name: string, text: string | undefined, fallback: number): number {
  const v = text === undefined ? fallback : Number(text);
  if (Number.isFinite(v) && v > 0) return v;
  process.stderr.write(`--${name} must be a positive number (got ${text})\n`);
  process.exit(2);
}
