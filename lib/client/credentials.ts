'use client';

import { useSyncExternalStore } from 'react';

/** The credentials a person entered in the panel, kept in this browser's localStorage only. */
export type Credentials = { apiKey: string; orgToken: string; partnerSecret: string };
export const EMPTY_CREDENTIALS: Credentials = { apiKey: '', orgToken: '', partnerSecret: '' };

const STORAGE_KEY = 'triad.credentials';
const listeners = new Set<() => void>();
let cachedRaw: string | null | undefined;
let cached: Credentials = EMPTY_CREDENTIALS;

function read(): Credentials {
  const raw = window.localStorage.getItem(STORAGE_KEY);
  if (raw !== cachedRaw) {
    cachedRaw = raw;
    try {
      const parsed = raw ? (JSON.parse(raw) as Partial<Credentials>) : {};
      cached = {
        apiKey: typeof parsed.apiKey === 'string' ? parsed.apiKey : '',
        orgToken: typeof parsed.orgToken === 'string' ? parsed.orgToken : '',
        partnerSecret: typeof parsed.partnerSecret === 'string' ? parsed.partnerSecret : '',
      };
    } catch {
      cached = EMPTY_CREDENTIALS;
    }
  }
  return cached;
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => e.key === STORAGE_KEY && listener();
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function saveCredentials(next: Credentials) {
  const trimmed = { apiKey: next.apiKey.trim(), orgToken: next.orgToken.trim(), partnerSecret: next.partnerSecret.trim() };
  window.localStorage.setItem(STORAGE_KEY, JSON.stringify(trimmed));
  listeners.forEach((l) => l());
}

export function clearCredentials() {
  window.localStorage.removeItem(STORAGE_KEY);
  listeners.forEach((l) => l());
}

/** The stored credentials (empty during server rendering). */
export function useCredentials(): Credentials {
  return useSyncExternalStore(subscribe, read, () => EMPTY_CREDENTIALS);
}
