import type { ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export declare function scriptOptions<T extends Options = Record<never, never>>(
  usage: string,
  options?: T,
  argv?: string[],
): ReturnType<typeof parseArgs<{ options: T }>>['values'];

export declare function refuse(message: string): never;

export declare function positiveNumber(
  name: string,
  text: string | undefined,
  fallback: number,
  opts?: { whole?: boolean; max?: number },
): number;
