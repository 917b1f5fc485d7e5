import { anthropicErrorBody } from '@/lib/errors/anthropic';
import { invalidRequest, chatErrorBody } from '@/lib/errors/chat';
import { invalidParameters, linkErrorBody } from '@/lib/errors/link';
import type { AnyDefinition } from './route';

// Checks a request's target (path and query string) before anything parses it: the server
// (lib/server) refuses, in the right group's error shape, what would cost the framework far
// more than a request should. Next's own handling of a query string takes time that grows with the
// square of the number of repeated keys (a 16 KB query of 7 900 `a&a&…` cost ~1.5 s of CPU), and a
// path that is not valid percent-encoding gets its plain-text 500. Everything here is one linear pass.

/** The most values one key may have: the longest list an endpoint takes (partner_node_id[] of partner/details). */
export const MAX_REPEATS = 100;

const decode = (text: string) => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
};

/**
 * Why the request target must be refused, or null when it may go on.
 * `maxParams`: how many `&`-separated parameters the query string may have.
 */
export function refuseTarget(url: string, maxParams: number): string | null {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  try {
    decodeURIComponent(path);
  } catch {
    return 'the path is not valid percent-encoding (UTF-8)';
  }
  if (q < 0) return null;
  const counts = new Map<string, number>();
  let params = 0;
  for (const part of url.slice(q + 1).split('&')) {
    if (!part) continue;
    if (++params > maxParams) return `the query string has more than ${maxParams} parameters`;
    const eq = part.indexOf('=');
    let key = decode(eq < 0 ? part : part.slice(0, eq));
    if (key.endsWith('[]')) key = key.slice(0, -2);
    const n = (counts.get(key) ?? 0) + 1;
    if (n > MAX_REPEATS) return `the query parameter ${JSON.stringify(key.slice(0, 50))} is repeated more than ${MAX_REPEATS} times`;
    counts.set(key, n);
  }
  return null;
}

/**
 * The 400 reply to a refused target, in the error shape of the route its path names (the route table
 * finds it: lib/server/routes.ts): the chat group's `{error:{message,type,code}}`, or
 * `{error:{message,status,detail}}` with the route's own bad-input reply (the alias group answers every
 * bad request with 400 NOT_FOUND, interface part 7), INVALID_PARAMETERS where no route is named.
 */
export function refusalBody(route: Pick<AnyDefinition, 'format' | 'badInput'> | null, reason: string): unknown {
  if (route?.format === 'chat') return chatErrorBody(invalidRequest(`Invalid request: ${reason}.`));
  if (route?.format === 'anthropic') return anthropicErrorBody(invalidRequest(`Invalid request: ${reason}.`));
  return linkErrorBody(route?.badInput?.(reason) ?? invalidParameters(reason));
}
