'use client';

import { useEffect, useState } from 'react';
import { curlCommand, pythonCode, typescriptCode } from '@/lib/client/chat';
import { forget, keep, type Kept, listKept, newConversationId } from '@/lib/client/conversations';
import { useSession } from '@/lib/client/session';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { NeedsCredential } from '@/components/ui/field';
import { Composer } from './composer';
import { Conversation } from './conversation';
import { Settings } from './settings';
import { chatBody, type ChatSettings, DEFAULT_SETTINGS, type Turn, useChat } from './use-chat';

type KeptChat = Kept<ChatSettings, Turn>;

/**
 * The streaming chat playground: a conversation (./use-chat.ts) and its settings. A signed-in
 * organization chats at once: its session's messages are counted on the organization's "Console
 * playground" API key, listed (and revocable) on the Keys page. Conversations are kept in this
 * browser (lib/client/conversations.ts) and can be opened again.
 */
export function Playground() {
  const { session, loading } = useSession();
  if (loading) return null;
  if (session?.role !== 'org') return <NeedsCredential what="an organization's session" />;
  return <Chat organization={session.organization?.name ?? 'the organization'} />;
}

function Chat({ organization }: { organization: string }) {
  const [settings, setSettings] = useState<ChatSettings>(DEFAULT_SETTINGS);
  const [id, setId] = useState(newConversationId);
  const [kept, setKept] = useState<KeptChat[]>([]);
  const chat = useChat(settings);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;

  // eslint-disable-next-line react-hooks/set-state-in-effect -- the browser's storage is read once the page is in the browser
  useEffect(() => setKept(listKept()), []);
  // A conversation is kept once a reply has ended (not while it streams), with the settings it was had with.
  useEffect(() => {
    if (chat.busy || !chat.turns.length) return;
    const first = chat.turns.find((t) => t.role === 'user');
    keep<ChatSettings, Turn>({ id, title: (first?.content || 'Image').slice(0, 80), updatedAt: Date.now(), settings, turns: chat.turns });
    setKept(listKept()); // eslint-disable-line react-hooks/set-state-in-effect -- the list as the browser's storage now holds it
    // Settings changed alone are kept with the next turn.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [chat.turns, chat.busy, id]);

  const open = (c: KeptChat) => {
    if (chat.busy) return;
    setSettings({ ...DEFAULT_SETTINGS, ...c.settings });
    chat.restore(c.turns);
    setId(c.id);
  };
  const fresh = () => {
    chat.clear();
    setId(newConversationId());
  };
  const awaiting = chat.awaiting;

  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <section className="flex min-h-[60vh] min-w-0 flex-col rounded-lg border border-slate-200 bg-surface" aria-label="Conversation">
        <Conversation turns={chat.turns} busy={chat.busy} onAnswer={chat.answerTools} />
        <Composer
          busy={chat.busy}
          blocked={
            awaiting.length
              ? `Give the result of ${awaiting.map((c) => c.name).join(', ')} above, or dismiss the call, before a new message.`
              : null
          }
          canRegenerate={chat.turns.some((t) => t.role !== 'assistant')}
          onSend={chat.send}
          onStop={chat.stop}
          onRegenerate={chat.regenerate}
        />
      </section>

      <aside className="min-w-0 space-y-4" aria-label="Settings">
        <Settings value={settings} onChange={setSettings} />
        <p className="text-xs text-slate-500">
          Counted on the key “Console playground” of {organization} (see{' '}
          <a className="underline" href="/keys">
            Keys
          </a>
          ).
        </p>
        <CodeExport
          code={{
            curl: () => curlCommand(origin, chatBody(settings, chat.pending())),
            Python: () => pythonCode(origin, chatBody(settings, chat.pending())),
            TypeScript: () => typescriptCode(origin, chatBody(settings, chat.pending())),
          }}
        />
        <Conversations
          kept={kept}
          current={id}
          busy={chat.busy}
          onOpen={open}
          onNew={fresh}
          onForget={(c) => (forget(c.id), setKept(listKept()))}
        />
      </aside>
    </div>
  );
}

/** The conversation as code to run elsewhere: curl, Python or TypeScript (openai), the key from $TRIAD_API_KEY. */
function CodeExport({ code }: { code: Record<'curl' | 'Python' | 'TypeScript', () => string> }) {
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap items-center gap-2">
        {(Object.keys(code) as (keyof typeof code)[]).map((lang) => (
          <CopyButton key={lang} value={code[lang]} label={`Copy as ${lang}`} text={`Copy ${lang}`} />
        ))}
      </div>
      <p className="text-xs text-slate-500">Python and TypeScript with the openai package; the key from $TRIAD_API_KEY.</p>
    </div>
  );
}

/** Conversations kept in this browser: open one again, start a new one, forget one. */
function Conversations({
  kept,
  current,
  busy,
  onOpen,
  onNew,
  onForget,
}: {
  kept: KeptChat[];
  current: string;
  busy: boolean;
  onOpen: (c: KeptChat) => void;
  onNew: () => void;
  onForget: (c: KeptChat) => void;
}) {
  return (
    <section aria-label="Conversations" className="space-y-2">
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-medium">Conversations</h2>
        <Button size="sm" onClick={onNew} disabled={busy}>
          New chat
        </Button>
      </div>
      {kept.length === 0 ? (
        <p className="text-xs text-slate-500">Kept in this browser once a reply has come (never a key).</p>
      ) : (
        <ul className="max-h-64 space-y-1 overflow-y-auto text-sm">
          {kept.map((c) => (
            <li key={c.id} className="flex items-center gap-1">
              <button
                type="button"
                disabled={busy}
                aria-current={c.id === current ? 'true' : undefined}
                onClick={() => onOpen(c)}
                className={`min-w-0 flex-1 truncate rounded px-2 py-1 text-left hover:bg-slate-100 ${c.id === current ? 'bg-indigo-50 text-indigo-700' : ''}`}
                title={`${c.title} — ${new Date(c.updatedAt).toLocaleString()}`}
              >
                {c.title}
              </button>
              <button
                type="button"
                aria-label={`Forget “${c.title}”`}
                onClick={() => onForget(c)}
                className="rounded px-1.5 text-slate-400 hover:bg-slate-100 hover:text-slate-700"
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
