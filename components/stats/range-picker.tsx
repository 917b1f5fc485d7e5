'use client';

import { useMemo, useState } from 'react';
import { floorHour, fromDateTimeLocal, HOUR_MS, toDateTimeLocal } from '@/lib/client/format';
import { useUrlState } from '@/lib/client/url-state';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/field';

const DAY_MS = 24 * HOUR_MS;
/** The API's limits: hourly buckets over at most 14 days, daily ones over at most 366. */
export const MAX_HOURLY_MS = 14 * DAY_MS;
const MAX_RANGE_MS = 366 * DAY_MS;
export type TimeRange = { start: number; end: number; label: string };
export type Bucket = 'hour' | 'day';

/** The presets people use in Grafana (design §19); past 14 days a chart shows one bucket a day. */
export const PRESETS = [
  { label: '1 h', ms: HOUR_MS },
  { label: '6 h', ms: 6 * HOUR_MS },
  { label: '24 h', ms: DAY_MS },
  { label: '7 d', ms: 7 * DAY_MS },
  { label: '14 d', ms: 14 * DAY_MS },
  { label: '30 d', ms: 30 * DAY_MS },
  { label: '90 d', ms: 90 * DAY_MS },
];

export const bucketOf = (r: TimeRange): Bucket => (r.end - r.start > MAX_HOURLY_MS ? 'day' : 'hour');
const floorDay = (ms: number) => ms - (ms % DAY_MS); // UTC days, as the API's daily buckets

/**
 * The last N hours or days up to now: from the start of the bucket N before now to the end of the one
 * under way (which counts only its elapsed part). 14 days is the API's hourly limit, so that preset
 * starts an hour later than the rule would.
 */
export function presetRange(label: string, now = Date.now()): TimeRange {
  const p = PRESETS.find((x) => x.label === label) ?? PRESETS[2]!;
  const end = floorHour(now) + HOUR_MS;
  const start = p.ms > MAX_HOURLY_MS ? floorDay(now - p.ms) : Math.max(floorHour(now - p.ms), end - MAX_HOURLY_MS);
  return { start, end, label: p.label };
}

/**
 * Why a range cannot be used, or null. The same rules as the API (rounded to the hour, at most 366
 * days; past 14 days in daily buckets), and no time ahead: a range ends within the hour under way at
 * the latest (which counts up to now).
 */
export function rangeProblem(start: number | null, end: number | null, now = Date.now()): string | null {
  if (start === null || end === null) return 'Choose both a start and an end.';
  const s = floorHour(start);
  const e = floorHour(end);
  if (s >= e) return 'The end must be at least an hour after the start.';
  if (s > floorHour(now) || e > floorHour(now) + HOUR_MS)
    return 'The range reaches into the future: choose an end no later than now (the hour under way counts up to now).';
  if (e - s > MAX_RANGE_MS) return `A range can be at most 366 days; this one is ${((e - s) / DAY_MS).toFixed(1)} days.`;
  return null;
}

/** A minute in the URL: 2026-11-20T10:00Z (UTC, readable, and the same wherever the link is opened). */
const urlTime = (ms: number) => new Date(ms).toISOString().slice(0, 16) + 'Z';
const parseUrlTime = (text: string) => {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
};

/**
 * The range a page shows, kept in the URL: `?range=7d` for a preset (relative to now when the page is
 * opened, like Grafana's), `?from=…&to=…` for a custom range. A link with a range the picker would refuse
 * shows the default instead.
 */
export function useUrlRange(fallback: string): [TimeRange, (r: TimeRange) => void] {
  const [q, set] = useUrlState({ range: fallback.replace(' ', ''), from: '', to: '' });
  const range = useMemo(() => {
    const from = parseUrlTime(q.from);
    const to = parseUrlTime(q.to);
    if (q.from && q.to && !rangeProblem(from, to)) return { start: floorHour(from!), end: floorHour(to!), label: 'custom' };
    const preset = PRESETS.find((p) => p.label.replace(' ', '') === q.range);
    return presetRange(preset?.label ?? fallback);
    // `q` changes when the URL does; a preset is computed again then, from the time it is opened.
  }, [q, fallback]);
  const setRange = (r: TimeRange) =>
    r.label === 'custom'
      ? set({ range: null, from: urlTime(r.start), to: urlTime(r.end) })
      : set({ range: r.label.replace(' ', ''), from: null, to: null });
  return [range, setRange];
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
    <div className="space-y-3 rounded-lg border border-slate-200 bg-surface p-4">
      <div role="group" aria-label="Range presets" className="flex flex-wrap gap-1">
        {PRESETS.map((p) => (
          <Button
            key={p.label}
            size="sm"
            variant={value.label === p.label ? 'primary' : 'secondary'}
            aria-pressed={value.label === p.label}
            aria-label={`Last ${p.label}`}
            onClick={() => onChange(presetRange(p.label))}
          >
            {p.label}
          </Button>
        ))}
      </div>
      <div className="grid grid-cols-1 items-end gap-3 sm:flex sm:flex-wrap">
        <label className="text-sm">
          <span className="block text-xs text-slate-500">From</span>
          <input
            type="datetime-local"
            aria-label="From"
            value={custom.start}
            onChange={(e) => setCustom({ ...custom, start: e.target.value })}
            className={`${inputClass} min-w-0`}
          />
        </label>
        <label className="text-sm">
          <span className="block text-xs text-slate-500">To</span>
          <input
            type="datetime-local"
            aria-label="To"
            value={custom.end}
            onChange={(e) => setCustom({ ...custom, end: e.target.value })}
            className={`${inputClass} min-w-0`}
          />
        </label>
        <Button
          className="justify-center"
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
        Showing {fmt(value.start)} → {value.end > now ? 'now' : fmt(value.end)}
        {bucketOf(value) === 'day' ? ', one bar a day (UTC)' : ''}. Bounds are rounded down to the hour, as the API does; the hour under way
        counts up to now.
      </p>
    </div>
  );
}
