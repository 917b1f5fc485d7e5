export declare const MAX_REPEATS: number;
export declare function refuseTarget(url: string, maxParams: number): string | null;
export declare function refusalBody(url: string, reason: string): { error: Record<string, string | number> };
