export declare function sourceFingerprint(): string;
export declare function buildIfNeeded(options?: { quiet?: boolean }): boolean;
