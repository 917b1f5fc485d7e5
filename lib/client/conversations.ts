import { randomSecret } from './format';

/*
 * The playground's conversations, kept in this browser's storage so that one can be opened again
 * later: turns and settings, never a key (the playground's calls go with the session's cookie). The
 * newest 30 are kept; when the browser's storage is full, attached images are left out of the oldest.
 */
export type Kept<Settings, Turn> = { id: string; title: string; updatedAt: number; settings: Settings; turns: Turn[] };

const KEY = 'triad-playground-conversations';
const MAX = 30;

export function listKept<S, T>(): Kept<S, T>[] {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) ?? '[]') as Kept<S, T>[];
    return Array.isArray(all) ? all.sort((a, b) => b.updatedAt - a.updatedAt) : [];
  } catch {
    return [];
  }
}

function write(all: Kept<unknown, unknown>[]) {
  for (let i = 0; i <= all.length; i++) {
    try {
      localStorage.setItem(KEY, JSON.stringify(all));
      return true;
    } catch {
      // Full: images out of the oldest conversation that still has some, then try again.
      const victim = [...all].reverse().find((c) => JSON.stringify(c.turns).includes('data:image'));
      if (!victim) return false;
      victim.turns = (victim.turns as { images?: string[] }[]).map((t) => (t.images ? { ...t, images: [] } : t));
    }
  }
  return false;
}

export function keep<S, T>(conversation: Kept<S, T>): boolean {
  const others = listKept<S, T>().filter((c) => c.id !== conversation.id);
  return write([conversation, ...others].slice(0, MAX) as Kept<unknown, unknown>[]);
}

export function forget(id: string) {
  write(listKept().filter((c) => c.id !== id));
}

/** An id from the browser's CSPRNG (crypto.randomUUID needs HTTPS or localhost; Triad is often reached by plain HTTP). */
export const newConversationId = () => randomSecret(12);
