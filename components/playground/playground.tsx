'use client';

import { useState } from 'react';
import { curlCommand } from '@/lib/client/chat';
import { useCredentials } from '@/lib/client/credentials';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { NeedsCredential } from '@/components/ui/field';
import { Composer } from './composer';
import { Conversation } from './conversation';
import { Settings } from './settings';
import { chatBody, type ChatSettings, useChat } from './use-chat';

/** The streaming chat playground: a conversation (./use-chat.ts) and its settings, with the API key of the Credentials panel. */
export function Playground() {
  const { apiKey } = useCredentials();
  const [settings, setSettings] = useState<ChatSettings>({
    model: 'triad-guide',
    system: 'You are a helpful assistant.',
    temperature: 0.7,
    maxTokens: 512,
  });
  const chat = useChat(apiKey, settings);

  if (!apiKey) return <NeedsCredential what="an API key" />;
  const origin = typeof window === 'undefined' ? '' : window.location.origin;

  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <section className="flex min-h-[60vh] min-w-0 flex-col rounded-lg border border-slate-200 bg-white" aria-label="Conversation">
        <Conversation turns={chat.turns} />
        <Composer
          busy={chat.busy}
          canRegenerate={chat.turns.some((t) => t.role === 'user')}
          onSend={chat.send}
          onStop={chat.stop}
          onRegenerate={chat.regenerate}
        />
      </section>

      <aside className="space-y-4" aria-label="Settings">
        <Settings apiKey={apiKey} value={settings} onChange={setSettings} />
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
