'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { checkCredentials, getDemoCredentials } from '@/lib/client/api';
import { clearCredentials, type Credentials, saveCredentials, useCredentials } from '@/lib/client/credentials';

const FIELDS: {
  key: keyof Credentials;
  label: string;
  hint: string;
  verdict: 'api_key' | 'org_token' | 'partner_secret';
  placeholder: string;
}[] = [
  { key: 'apiKey', label: 'API key', hint: 'Chat playground', verdict: 'api_key', placeholder: 'sk_live_…' },
  { key: 'orgToken', label: 'Organization token', hint: 'Statistics and aliases', verdict: 'org_token', placeholder: 'org_…' },
  { key: 'partnerSecret', label: 'Partner secret', hint: 'Statistics', verdict: 'partner_secret', placeholder: 'pt_sec_…' },
];

/** Where a person enters the credentials the dashboard uses. They stay in this browser (localStorage). */
export function CredentialsPanel({ onDone }: { onDone?: () => void }) {
  const stored = useCredentials();
  // Remount the form when the stored values change (hydration, another tab, Clear), so the draft follows them.
  return <CredentialsForm key={JSON.stringify(stored)} stored={stored} onDone={onDone} />;
}

function CredentialsForm({ stored, onDone }: { stored: Credentials; onDone?: () => void }) {
  const [draft, setDraft] = useState<Credentials>(stored);
  const [revealed, setRevealed] = useState(false);
  const queryClient = useQueryClient();

  const verdict = useQuery({
    queryKey: ['credentials-check', stored],
    queryFn: () =>
      checkCredentials({
        api_key: stored.apiKey || undefined,
        org_token: stored.orgToken || undefined,
        partner_secret: stored.partnerSecret || undefined,
      }),
    enabled: !!(stored.apiKey || stored.orgToken || stored.partnerSecret),
  });
  const demo = useQuery({ queryKey: ['demo-credentials'], queryFn: getDemoCredentials, retry: false, staleTime: Infinity });

  const dirty = FIELDS.some((f) => draft[f.key].trim() !== stored[f.key]);

  function save(next: Credentials) {
    saveCredentials(next);
    void queryClient.invalidateQueries();
  }

  return (
    <section aria-label="Credentials" className="space-y-4">
      <p className="text-sm text-slate-600">
        The dashboard calls Triad&apos;s public API with these credentials. They are kept in this browser only and sent only to this server.
      </p>
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          save(draft);
          onDone?.();
        }}
      >
        {FIELDS.map((f) => {
          const v = verdict.data?.[f.verdict];
          const current = stored[f.key];
          return (
            <label key={f.key} className="block">
              <span className="flex items-baseline justify-between text-sm font-medium text-slate-800">
                {f.label}
                <span className="text-xs font-normal text-slate-500">{f.hint}</span>
              </span>
              <input
                name={f.key}
                type={revealed ? 'text' : 'password'}
                autoComplete="off"
                spellCheck={false}
                placeholder={f.placeholder}
                value={draft[f.key]}
                onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
                className="mt-1 w-full rounded-md border border-slate-300 bg-white px-3 py-2 font-mono text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200"
              />
              {current && v && !dirty && (
                <span data-testid={`verdict-${f.key}`} className={`mt-1 block text-xs ${v.valid ? 'text-emerald-700' : 'text-rose-700'}`}>
                  {v.valid
                    ? `✓ valid${'organization' in v && v.organization ? ` — ${v.organization}` : ''}${'partner' in v && v.partner ? ` — ${v.partner}` : ''}`
                    : f.key === 'partnerSecret' && !verdict.data?.org_token?.valid
                      ? '✗ needs a valid organization token to be checked'
                      : '✗ not accepted by this server'}
                </span>
              )}
            </label>
          );
        })}
        <label className="flex items-center gap-2 text-sm text-slate-600">
          <input type="checkbox" checked={revealed} onChange={(e) => setRevealed(e.target.checked)} /> Show values
        </label>
        <div className="flex flex-wrap gap-2">
          <button type="submit" className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-500">
            Save
          </button>
          <button
            type="button"
            onClick={() => {
              clearCredentials();
              queryClient.clear();
            }}
            className="rounded-md border border-slate-300 px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100"
          >
            Clear
          </button>
          {demo.data && (
            <button
              type="button"
              onClick={() => save({ apiKey: demo.data.api_key, orgToken: demo.data.org_token, partnerSecret: demo.data.partner_secret })}
              className="rounded-md border border-emerald-600 px-3 py-2 text-sm font-medium text-emerald-700 hover:bg-emerald-50"
            >
              Use demo credentials
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
