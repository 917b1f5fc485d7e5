export const SERVER_NODE_FLAGS: string[];
export const SERVER_ENV: Record<string, string>;
export function serverEnv<E extends Record<string, string | undefined>>(env: E): E & Record<string, string>;
export function serverArgs(...args: string[]): string[];
/** The server's node flags for a Node version (this one's by default). */
export function nodeFlags(version?: string): string[];
/** The server's flags (this node's by default) that `execArgv` does not give, by name. */
export function missingFlags(execArgv: string[], flags?: string[]): string[];
