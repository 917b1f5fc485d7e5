export const SERVER_NODE_FLAGS: string[];
export function serverArgs(...args: string[]): string[];
