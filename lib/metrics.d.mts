export type RouteTable = { exact: Map<string, string>; patterns: { regex: RegExp; label: string; dynamic: number }[] };
export declare function routeTable(appPaths: string[]): RouteTable;
export declare function setRouteTable(table: RouteTable): void;
export declare function routeLabel(pathname: string): string;
export declare function observeRequest(method: string, pathname: string, status: number, seconds: number): void;
export declare function streamOpened(): void;
export declare function streamClosed(): void;
export declare function rateLimitRejected(limiter: string): void;
export declare function renderMetrics(): string;
export declare function metrics(): {
  requests: Map<string, number>;
  durations: Map<string, { buckets: number[]; sum: number; count: number }>;
  openStreams: number;
  rateLimited: Map<string, number>;
  routes: RouteTable | null;
};
