'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ALIAS_TYPES, type AliasWire, createAliasSchema, updateAliasSchema } from '@/lib/aliases/schema';
import { createAlias, updateAlias } from '@/lib/client/aliases';
import type { ApiError } from '@/lib/client/api';
import { fromDateTimeLocal, randomDigits, randomSecret, toDateTimeLocal } from '@/lib/client/format';
import { Button } from '@/components/ui/button';
import { Field, inputClass } from '@/components/ui/field';
import { reload } from '@/lib/client/reload';

type Draft = { type: string; name: string; passcode: string; jwt_secret: string; stream_key: string; expires: string };

/**
 * Create or edit an alias. The input is checked with the same zod schema the server uses
 * (lib/aliases/schema.ts) before it is sent; the server's reply is shown as it came.
 * In edit mode an emptied secret field is sent as null, which clears it.
 */
export function AliasForm({
  token,
  alias,
  onSaved,
  onCancel,
}: {
  token: string;
  alias?: AliasWire;
  onSaved: (a: AliasWire) => void;
  onCancel: () => void;
}) {
  const editing = !!alias;
  const [draft, setDraft] = useState<Draft>(() => ({
    type: alias?.type ?? 'live',
    name: alias?.name ?? '',
    passcode: alias?.passcode ?? '',
    jwt_secret: alias?.jwt_secret ?? '',
    stream_key: alias?.stream_key ?? '',
    expires: toDateTimeLocal(alias?.expired_at ?? Math.floor(Date.now() / 1000) + 86_400),
  }));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const queryClient = useQueryClient();

  const save = useMutation({
    mutationFn: (input: Record<string, unknown>) =>
      editing ? updateAlias(token, alias.id, updateAliasSchema.parse(input)) : createAlias(token, createAliasSchema.parse(input)),
    onSuccess: (saved) => {
      void reload(queryClient, ['aliases']);
      onSaved(saved);
    },
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    const blank = editing ? null : undefined; // edit: empty clears; create: empty omits
    const text = (v: string) => (v.trim() === '' ? blank : v);
    const expiredAt = fromDateTimeLocal(draft.expires);
    const input = {
      type: draft.type,
      name: text(draft.name),
      passcode: text(draft.passcode),
      jwt_secret: text(draft.jwt_secret),
      stream_key: text(draft.stream_key),
      expired_at: expiredAt ?? undefined,
    };
    const parsed = (editing ? updateAliasSchema : createAliasSchema).safeParse(input);
    const found: Record<string, string> = {};
    if (!parsed.success) for (const issue of parsed.error.issues) found[String(issue.path[0] ?? 'form')] ??= issue.message;
    if (expiredAt === null) found.expired_at = 'choose a date and time';
    else if (!editing && expiredAt <= Date.now() / 1000) found.expired_at = 'must be in the future';
    setErrors(found);
    if (Object.keys(found).length === 0) save.mutate(input);
  }

  const set = (key: keyof Draft) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setDraft({ ...draft, [key]: e.target.value });
  const serverError = save.error as ApiError | null;

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Type" error={errors.type}>
          <select name="type" value={draft.type} onChange={set('type')} className={inputClass}>
            {ALIAS_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Name" hint="optional" error={errors.name}>
          <input name="name" value={draft.name} onChange={set('name')} className={inputClass} aria-invalid={!!errors.name} />
        </Field>
      </div>
      <Field label="Expires at" hint="your local time" error={errors.expired_at}>
        <input
          name="expires"
          type="datetime-local"
          value={draft.expires}
          onChange={set('expires')}
          className={inputClass}
          aria-invalid={!!errors.expired_at}
        />
      </Field>
      <Field label="Passcode" hint="basic access with ?passcode=" error={errors.passcode}>
        <input
          name="passcode"
          value={draft.passcode}
          onChange={set('passcode')}
          autoComplete="off"
          className={`${inputClass} font-mono`}
          aria-invalid={!!errors.passcode}
        />
        <Button onClick={() => setDraft({ ...draft, passcode: randomDigits(8) })}>Generate</Button>
      </Field>
      <Field label="JWT secret" hint="≥ 32 bytes; enables token access" error={errors.jwt_secret}>
        <input
          name="jwt_secret"
          value={draft.jwt_secret}
          onChange={set('jwt_secret')}
          autoComplete="off"
          className={`${inputClass} font-mono`}
          aria-invalid={!!errors.jwt_secret}
        />
        <Button onClick={() => setDraft({ ...draft, jwt_secret: randomSecret(32) })}>Generate</Button>
      </Field>
      <Field label="Stream key" hint="optional" error={errors.stream_key}>
        <input
          name="stream_key"
          value={draft.stream_key}
          onChange={set('stream_key')}
          autoComplete="off"
          className={`${inputClass} font-mono`}
          aria-invalid={!!errors.stream_key}
        />
        <Button onClick={() => setDraft({ ...draft, stream_key: randomSecret(24) })}>Generate</Button>
      </Field>
      <p className="text-xs text-slate-500">
        With neither passcode nor JWT secret the alias is public until it expires.{editing && ' Empty a field to remove that secret.'}
      </p>
      {serverError && (
        <p role="alert" className="rounded-md bg-rose-50 p-3 text-sm text-rose-800">
          The server refused it: {serverError.explanation}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : editing ? 'Save changes' : 'Create alias'}
        </Button>
      </div>
    </form>
  );
}
