// The part of undici that lib/providers/http-client.ts loads: its agent (the package index loads all of
// undici: fetch, WebSocket, caches, mocks — about 3 MB of heap a server would carry for nothing). Typed by undici's own types.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
