/**
 * Pages served at other addresses than their own (next.config.ts's rewrites, read from the build by
 * lib/server/prerendered.ts): every node's page, /stats/<node>, is one prerendered page that reads the
 * node from the address.
 */
export const PAGE_REWRITES = [{ source: '/stats/:partnerNodeId', destination: '/stats/node' }];

/** The rewrites' sources as routes of the app (`/stats/[partnerNodeId]/page`), for the metrics' route labels. */
export const rewrittenRoutes = (): string[] => PAGE_REWRITES.map((r) => `${r.source.replace(/:(\w+)/g, '[$1]')}/page`);
