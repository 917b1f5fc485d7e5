export declare const PORTS: { pglite: number; postgres: number };
export declare const E2E_SECRET_KEY: string;
export declare function e2eDataDir(port: number): string;
export declare function e2eDatabaseUrl(port: number): string;
export declare const UPSTREAM_PORT: number;
export declare const UPSTREAM_URL: string;
export declare function e2eLogFile(port: number): string;
export declare const E2E_SECRETS_FILE: string;
