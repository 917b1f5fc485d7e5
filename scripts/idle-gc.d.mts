export declare function idleCollector(options?: { collect?: (() => void) | undefined; quietMs?: number }): {
  collect: () => void;
  begin: () => void;
  end: () => void;
  stop: () => void;
};
