'use client';

import { useState } from 'react';
import { curlCommand } from '@/lib/client/chat';
import { useSession } from '@/lib/client/session';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { NeedsCredential } from '@/components/ui/field';
import { Composer } from './composer';
import { Conversation } from './conversation';
import { Settings } from './settings';
import { chatBody, type ChatSettings, DEFAULT_SETTINGS, useChat } from './use-chat';

/**
 * The streaming chat playground: a conversation (./use-chat.ts) and its settings. A signed-in
 * organization chats at once: its session's messages are counted on the organization's "Console
 * playground" API key, listed (and revocable) on the Keys page.
 */
export function Playground() {
  const { session, loading } = useSession();
  const [settings, setSettings] = useState<ChatSettings>(DEFAULT_SETTINGS);
  const chat = useChat(settings);

  if (loading) return null;
  if (session?.role !== 'org') return <NeedsCredential what="an organization's session (sign in with its org token)" />;
  const origin = typeof window === 'undefined' ? '' : window.location.origin;

  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <section className="flex min-h-[60vh] min-w-0 flex-col rounded-lg border border-slate-200 bg-white" aria-label="Conversation">
        <Conversation turns={chat.turns} busy={chat.busy} onAnswer={chat.answerTools} />
        <Composer
          busy={chat.busy}
          canRegenerate={chat.turns.some((t) => t.role !== 'assistant')}
          onSend={chat.send}
          onStop={chat.stop}
          onRegenerate={chat.regenerate}
        />
      </section>

      <aside className="space-y-4" aria-label="Settings">
        <Settings value={settings} onChange={setSettings} />
        <p className="text-xs text-slate-500">
          Counted on the key “Console playground” of {session.organization?.name} (see{' '}
          <a className="underline" href="/keys">
            Keys
          </a>
          ).
        </p>
        <div className="flex flex-wrap gap-2">
          <CopyButton value={curlCommand(origin, chatBody(settings, chat.pending()))} label="Copy as curl" />
          <span className="self-center text-xs text-slate-500">as curl (key from $TRIAD_API_KEY)</span>
          <Button size="sm" variant="ghost" disabled={chat.busy || chat.turns.length === 0} onClick={chat.clear}>
            Clear chat
          </Button>
        </div>
      </aside>
    </div>
  );
}
