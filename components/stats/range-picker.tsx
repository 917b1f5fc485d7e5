'use client';

import { useState } from 'react';
import { floorHour, fromDateTimeLocal, HOUR_MS, toDateTimeLocal } from '@/lib/client/format';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/field';

export const MAX_RANGE_MS = 14 * 24 * HOUR_MS;
export type TimeRange = { start: number; end: number; label: string };

export const PRESETS = [
  { label: '24 h', ms: 24 * HOUR_MS },
  { label: '7 d', ms: 7 * 24 * HOUR_MS },
  { label: '14 d', ms: MAX_RANGE_MS },
];

export function presetRange(label: string, now = Date.now()): TimeRange {
  const p = PRESETS.find((x) => x.label === label) ?? PRESETS[0]!;
  const end = floorHour(now) + HOUR_MS; // include the current hour
  return { start: end - p.ms, end, label: p.label };
}

/**
 * Why a range cannot be used, or null. The same rules as the API (rounded to the hour, at most 14 days),
 * and no time ahead: a range ends within the hour under way at the latest (which counts up to now).
 */
export function rangeProblem(start: number | null, end: number | null, now = Date.now()): string | null {
  if (start === null || end === null) return 'Choose both a start and an end.';
  const s = floorHour(start);
  const e = floorHour(end);
  if (s >= e) return 'The end must be at least an hour after the start.';
  if (s > floorHour(now) || e > floorHour(now) + HOUR_MS)
    return 'The range reaches into the future: choose an end no later than now (the hour under way counts up to now).';
  if (e - s > MAX_RANGE_MS) return `A range can be at most 14 days; this one is ${((e - s) / (24 * HOUR_MS)).toFixed(1)} days.`;
  return null;
}

const fmt = (ms: number) => new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function RangePicker({ value, onChange }: { value: TimeRange; onChange: (r: TimeRange) => void }) {
  // When the picker opened: a preset's end is the hour under way's end, so the form starts from now
  // instead, never from a time ahead; and a range is checked against it.
  const [now] = useState(() => Date.now());
  const [custom, setCustom] = useState(() => ({
    start: toDateTimeLocal(value.start / 1000),
    end: toDateTimeLocal(Math.min(value.end, now) / 1000),
  }));
  const startMs = fromDateTimeLocal(custom.start);
  const endMs = fromDateTimeLocal(custom.end);
  const problem = rangeProblem(startMs === null ? null : startMs * 1000, endMs === null ? null : endMs * 1000, now);

  return (
    <div className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
      <div className="flex flex-wrap items-end gap-3">
        <div role="group" aria-label="Range presets" className="flex gap-1">
          {PRESETS.map((p) => (
            <Button
              key={p.label}
              variant={value.label === p.label ? 'primary' : 'secondary'}
              aria-pressed={value.label === p.label}
              onClick={() => onChange(presetRange(p.label))}
            >
              Last {p.label}
            </Button>
          ))}
        </div>
        <label className="text-sm">
          <span className="block text-xs text-slate-500">From</span>
          <input
            type="datetime-local"
            aria-label="From"
            value={custom.start}
            onChange={(e) => setCustom({ ...custom, start: e.target.value })}
            className={inputClass}
          />
        </label>
        <label className="text-sm">
          <span className="block text-xs text-slate-500">To</span>
          <input
            type="datetime-local"
            aria-label="To"
            value={custom.end}
            onChange={(e) => setCustom({ ...custom, end: e.target.value })}
            className={inputClass}
          />
        </label>
        <Button
          disabled={!!problem}
          onClick={() => onChange({ start: floorHour(startMs! * 1000), end: floorHour(endMs! * 1000), label: 'custom' })}
        >
          Apply range
        </Button>
      </div>
      {problem && (
        <p role="alert" className="text-sm text-rose-700">
          {problem}
        </p>
      )}
      <p className="text-xs text-slate-500" data-testid="rounded-range">
        Showing {fmt(value.start)} → {value.end > now ? 'now' : fmt(value.end)}. Bounds are rounded down to the hour, as the API does; the
        hour under way counts up to now.
      </p>
    </div>
  );
}
