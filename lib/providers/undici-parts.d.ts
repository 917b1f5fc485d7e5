// The two parts of undici that lib/providers/http-client.ts loads (its package index loads all of undici:
// fetch, WebSocket, caches, mocks — about 3 MB of heap a server would carry for nothing). Typed by undici's own types.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  export default function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}
