export declare function routeLabel(pathname: string): string;
export declare function observeRequest(method: string, pathname: string, status: number, seconds: number): void;
export declare function streamOpened(): void;
export declare function streamClosed(): void;
export declare function rateLimitRejected(limiter: string): void;
export declare function renderMetrics(): string;
