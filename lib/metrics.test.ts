import { describe, expect, it } from 'vitest';
import { rewrittenRoutes } from './http/page-rewrites';
import { metrics, observeRequest, renderMetrics, routeLabel, routeTable, setRouteTable } from './metrics';

const APP_PATHS = [
  '/(dashboard)/page',
  '/(dashboard)/stats/node/page',
  '/_not-found/page',
  '/api/health/route',
  '/api/v1/uptime/route',
  '/organization/api/v1/alias/[id]/route',
  '/organization/api/v1/alias/create/route',
  '/organization/api/v1/alias/delete/[id]/route',
];

describe('metrics labels', () => {
  it('label a path with the route that serves it, static routes before dynamic ones', () => {
    // Each node's page is one page at every node's address (next.config.ts's rewrite): labelled by the address.
    setRouteTable(routeTable([...APP_PATHS, ...rewrittenRoutes()]));
    expect(routeLabel('/')).toBe('/');
    expect(routeLabel('/api/health')).toBe('/api/health');
    expect(routeLabel('/stats/demo-node-001')).toBe('/stats/:partnerNodeId');
    expect(routeLabel('/organization/api/v1/alias/create')).toBe('/organization/api/v1/alias/create');
    expect(routeLabel('/organization/api/v1/alias/ab12cd34ef')).toBe('/organization/api/v1/alias/:id');
    expect(routeLabel('/organization/api/v1/alias/delete/ab12cd34ef')).toBe('/organization/api/v1/alias/delete/:id');
    expect(routeLabel('/_next/static/chunks/x.js')).toBe('/_next/*');
  });

  it('give every other path one label, so that the metric set stays bounded whatever the traffic', () => {
    setRouteTable(routeTable(APP_PATHS));
    const before = renderMetrics().length;
    for (let i = 0; i < 500; i++) {
      observeRequest('GET', `/api/${'x'.repeat(8000)}${i}`, 404, 0.001);
      observeRequest(`M${i}`, `/organization/${i}/nope`, 404, 0.001);
      observeRequest('GET', `/_not-found`, 404, 0.001);
    }
    const after = renderMetrics();
    expect(routeLabel(`/api/${'x'.repeat(100)}`)).toBe('other');
    expect(after).not.toContain('xxxxxxxx');
    expect(after).toContain('route="other",method="OTHER",status="404"');
    // Two label sets (other GET 404 and other OTHER 404) and one histogram: a few kilobytes at most.
    expect(after.length - before).toBeLessThan(3000);
    expect([...metrics().durations.keys()]).toEqual(['other']);
  });
});
