import type { JsonBody } from './body';

/** What a handler reads of its request, whichever door it came through (lib/http/route.ts). */
export type RequestView = {
  method: string;
  /** The full URL (query included). */
  url: string;
  path: string;
  headers: { get(name: string): string | null };
  /** The JSON body, within the route's limit (TRIAD_MAX_BODY_BYTES unless said): its value, and its text as sent. */
  json(): Promise<JsonBody>;
  /** Fires when the client goes away before the reply is complete. */
  signal: AbortSignal;
};
