'use client';

import { usePathname, useSearchParams } from 'next/navigation';
import { useCallback, useMemo, useState } from 'react';

/**
 * A view's state a person would share, kept in the URL's query (design §19): reload, back and a pasted
 * link show the same view. Values are text; a value equal to its default is left out of the URL, and
 * `null` removes a key. Changes go through the browser's history (Next keeps `useSearchParams` in step
 * with it), so no page is fetched again: 'push' makes a step back can undo (a sort, a page, a range),
 * 'replace' does not (each letter typed in a search box).
 */
export function useUrlState<K extends string>(defaults: Record<K, string>) {
  const params = useSearchParams();
  const pathname = usePathname();
  const [fallback] = useState(defaults); // the first render's: callers pass a fresh object each time
  const state = useMemo(() => {
    const s = { ...fallback };
    for (const k of Object.keys(fallback) as K[]) s[k] = params.get(k) ?? fallback[k];
    return s;
  }, [params, fallback]);
  const set = useCallback(
    (patch: Partial<Record<K | string, string | null>>, how: 'push' | 'replace' = 'push') => {
      const next = new URLSearchParams(window.location.search);
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) continue;
        if (v === null || v === (fallback as Record<string, string>)[k]) next.delete(k);
        else next.set(k, v);
      }
      const qs = next.toString();
      const url = `${pathname}${qs ? `?${qs}` : ''}`;
      if (url === `${window.location.pathname}${window.location.search}`) return;
      if (how === 'push') window.history.pushState(null, '', url);
      else window.history.replaceState(null, '', url);
    },
    [pathname, fallback],
  );
  return [state, set, params] as const;
}

/** A whole number of at least `min` from URL text, or `fallback`. */
export function intParam(text: string | null | undefined, fallback: number, min = 0): number {
  const n = Number(text);
  return text && Number.isInteger(n) && n >= min ? n : fallback;
}
