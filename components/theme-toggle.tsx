'use client';

import { useEffect, useState } from 'react';

import { THEME_KEY as KEY } from '@/lib/client/theme';

type Choice = 'system' | 'light' | 'dark';
const NEXT: Record<Choice, Choice> = { system: 'light', light: 'dark', dark: 'system' };
const ICON: Record<Choice, string> = { system: '◐', light: '☀', dark: '☾' };

function apply(choice: Choice) {
  const dark = choice === 'dark' || (choice === 'system' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.classList.toggle('dark', dark);
  document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
}

export function ThemeToggle() {
  const [choice, setChoice] = useState<Choice>('system');
  useEffect(() => {
    const stored = localStorage.getItem(KEY);
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the stored choice is read once the page is in the browser
    if (stored === 'light' || stored === 'dark') setChoice(stored);
  }, []);
  useEffect(() => {
    apply(choice);
    if (choice !== 'system') return;
    const media = matchMedia('(prefers-color-scheme: dark)');
    const follow = () => apply('system');
    media.addEventListener('change', follow);
    return () => media.removeEventListener('change', follow);
  }, [choice]);
  const next = NEXT[choice];
  return (
    <button
      type="button"
      aria-label={`Theme: ${choice}. Switch to ${next}`}
      title={`Theme: ${choice} (click for ${next})`}
      data-theme-choice={choice}
      onClick={() => {
        if (next === 'system') localStorage.removeItem(KEY);
        else localStorage.setItem(KEY, next);
        setChoice(next);
      }}
      className="rounded-md border border-slate-300 px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100"
    >
      <span aria-hidden>{ICON[choice]}</span>
    </button>
  );
}
