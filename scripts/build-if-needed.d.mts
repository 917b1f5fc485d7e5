export declare const SERVER_ENTRY: string;
export declare function sourceFingerprint(): string;
export declare function buildServer(): void;
export declare function buildIfNeeded(options?: { quiet?: boolean }): boolean;
