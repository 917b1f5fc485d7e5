'use client';

import { addDecimals } from '@/lib/core/decimal';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { memo, useDeferredValue, useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { getUsage, type UsageGroup, type UsageSeries } from '@/lib/client/console';
import { useSession } from '@/lib/client/session';
import { NeedsCredential } from '@/components/ui/field';
import { bucketOf, RangePicker, type TimeRange, useUrlRange } from '@/components/stats/range-picker';
import { useUrlState } from '@/lib/client/url-state';
import { countOf } from '@/lib/client/format';
import { axisProps, countAxis, gridProps, timeAxis, tooltipNumber, tooltipProps } from '@/components/ui/chart-parts';
import { Button } from '@/components/ui/button';
import { ErrorNote, TableBox } from './common';
import { OTHERS, type Row, seriesOf } from './usage-series';

const COLORS = ['#4f46e5', '#059669', '#d97706', '#db2777', '#0891b2', '#7c3aed', '#65a30d', '#dc2626'];
/** The folded series of the groups beyond a chart's busiest (./usage-series.ts). */
const OTHERS_COLOR = '#94a3b8';
const DAY = 86_400_000;
type Point = UsageSeries['data'][number];

const GROUPS: Record<'org' | 'instance', UsageGroup[]> = { org: ['key', 'model'], instance: ['organization', 'key', 'model'] };
const GROUP_TITLE: Record<UsageGroup, string> = { key: 'Key', model: 'Model', organization: 'Organization' };

/** The usage page of whoever is signed in: an organization's own, or the whole instance's for the administrator. */
export function UsagePage() {
  const { session, loading } = useSession();
  if (loading) return null;
  if (!session) return <NeedsCredential what="a session" />;
  return <Usage key={session.role} scope={session.role === 'admin' ? 'instance' : 'org'} />;
}

/** Usage over time (GET /api/org/usage, /api/instance/usage): stacked charts per group, a table, and CSV. */
function Usage({ scope }: { scope: 'org' | 'instance' }) {
  const [range, setRange] = useUrlRange('24 h');
  // Buckets follow the range (daily past 14 days) unless chosen; hourly ones cover at most 31 days.
  const [q, setQ] = useUrlState({ bucket: '', per: GROUPS[scope][0]! });
  const bucket: 'hour' | 'day' =
    q.bucket === 'day' || (q.bucket !== 'hour' && bucketOf(range) === 'day') || range.end - range.start > 31 * DAY ? 'day' : 'hour';
  const groupBy: UsageGroup = GROUPS[scope].includes(q.per as UsageGroup) ? (q.per as UsageGroup) : GROUPS[scope][0]!;
  const setBucket = (b: 'hour' | 'day') => setQ({ bucket: b });
  const setGroupBy = (g: UsageGroup) => setQ({ per: g });
  const usage = useQuery({
    queryKey: ['usage', scope, range.start, range.end, bucket, groupBy],
    queryFn: () => getUsage(scope, { start: range.start, end: range.end, bucket, groupBy }),
    placeholderData: keepPreviousData,
    staleTime: 0, // asked again on every visit: what was just used should show
    refetchInterval: 15_000,
  });
  const points = useMemo(() => usage.data?.data ?? [], [usage.data]);
  // The charts draw thousands of shapes for a month of hours: the totals and the table show first, the
  // charts follow in a render that a newer answer or a click can interrupt.
  const charted = useDeferredValue(points);
  const groups = useMemo(() => [...new Map(charted.map((p) => [p.group, p.label])).entries()], [charted]);
  const rows = useMemo(() => chartRows(charted, range, bucket), [charted, range, bucket]);
  const totals = useMemo(
    () =>
      points.reduce(
        (t, p) => ({
          requests: t.requests + p.requests,
          prompt: t.prompt + p.prompt_tokens,
          completion: t.completion + p.completion_tokens,
          cost: addDecimals(t.cost, p.cost),
          errors: t.errors + p.errors,
        }),
        { requests: 0, prompt: 0, completion: 0, cost: '0', errors: 0 },
      ),
    [points],
  );

  return (
    <div className="space-y-6">
      <RangePicker key={`${range.label}-${range.start}`} value={range} onChange={setRange} />
      <div className="flex flex-wrap items-center gap-4 text-sm">
        <Toggle label="Buckets" value={bucket} options={['hour', 'day']} onChange={setBucket} />
        <Toggle label="Per" value={groupBy} options={GROUPS[scope]} onChange={setGroupBy} />
        <Button size="sm" className="ml-auto" disabled={!points.length} onClick={() => download(points, groupBy)}>
          Export CSV
        </Button>
      </div>
      <ErrorNote error={usage.error} />
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-5" data-testid="usage-totals">
        {(
          [
            ['Requests', totals.requests],
            ['Prompt tokens', totals.prompt],
            ['Completion tokens', totals.completion],
            ['Spend USD', totals.cost],
            ['Errors', totals.errors],
          ] as const
        ).map(([label, value]) => (
          <div key={label} className="rounded-lg border border-slate-200 bg-surface p-3">
            <dt className="text-xs uppercase text-slate-500">{label}</dt>
            <dd className="text-xl font-semibold tabular-nums" data-testid={`total-${label.toLowerCase().replaceAll(' ', '-')}`}>
              {usage.isPending ? '—' : typeof value === 'string' ? `$${value}` : value.toLocaleString('en-US')}
            </dd>
          </div>
        ))}
      </dl>
      <Chart title="Requests" rows={rows} groups={groups} metric="requests" />
      <Chart title="Tokens (prompt + completion)" rows={rows} groups={groups} metric="tokens" />
      <Chart title="Spend (USD)" rows={rows} groups={groups} metric="cost" decimals />
      <Chart title="Errors" rows={rows} groups={groups} metric="errors" />
      <Latency points={charted} groups={groups} range={range} bucket={bucket} />
      <UsageTable
        key={`${range.start}-${range.end}-${bucket}-${groupBy}`}
        points={points}
        bucket={bucket}
        groupBy={groupBy}
        state={usage.isPending ? 'loading' : usage.isError ? 'failed' : 'loaded'}
      />
    </div>
  );
}

/** Rows of the usage table at first, and at each "Show more": the charts, the totals and the CSV have them all. */
const TABLE_PAGE = 25;

/**
 * The usage table, newest bucket first, TABLE_PAGE rows at a time (31 days of hourly buckets for a few
 * dozen keys are tens of thousands of rows: a page of cards on a phone, and a table redrawn at every
 * refresh). Keyed by its query: a new range, bucket or grouping starts again at the first rows.
 */
function UsageTable({
  points,
  bucket,
  groupBy,
  state,
}: {
  points: Point[];
  bucket: 'hour' | 'day';
  groupBy: UsageGroup;
  state: 'loading' | 'failed' | 'loaded';
}) {
  const [shown, setShown] = useState(TABLE_PAGE);
  const newest = useMemo(() => [...points].reverse(), [points]);
  const more = Math.min(TABLE_PAGE, newest.length - shown);
  return (
    <>
      <TableBox label="Usage">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">{bucket === 'hour' ? 'Hour' : 'Day'}</th>
            <th className="px-3 py-2">{GROUP_TITLE[groupBy]}</th>
            <th className="px-3 py-2 text-right">Requests</th>
            <th className="px-3 py-2 text-right">Prompt</th>
            <th className="px-3 py-2 text-right">Completion</th>
            <th className="px-3 py-2 text-right">Spend, USD</th>
            <th className="px-3 py-2 text-right">Errors</th>
            <th className="px-3 py-2 text-right">p50 / p95 ms</th>
            <th className="px-3 py-2 text-right">TTFT p50 ms</th>
          </tr>
        </thead>
        <tbody>
          {newest.slice(0, shown).map((p) => (
            <tr key={`${p.bucket_start}-${p.group}`} className="border-b border-slate-100 tabular-nums">
              <td className="px-3 py-2">
                {new Date(p.bucket_start).toLocaleString(
                  undefined,
                  bucket === 'hour' ? { dateStyle: 'short', timeStyle: 'short' } : { dateStyle: 'medium' },
                )}
              </td>
              <td className="px-3 py-2">{p.label}</td>
              <td className="px-3 py-2 text-right">{p.requests}</td>
              <td className="px-3 py-2 text-right">{p.prompt_tokens}</td>
              <td className="px-3 py-2 text-right">{p.completion_tokens}</td>
              <td className="px-3 py-2 text-right">{p.cost}</td>
              <td className="px-3 py-2 text-right">{p.errors}</td>
              <td className="px-3 py-2 text-right">
                {p.latency_p50_ms ?? '—'} / {p.latency_p95_ms ?? '—'}
              </td>
              <td className="px-3 py-2 text-right">{p.ttft_p50_ms ?? '—'}</td>
            </tr>
          ))}
          {!points.length && (
            <tr>
              <td colSpan={9} className="px-3 py-6 text-center text-slate-500">
                {/* Until the first answer: not "no usage", which would be a claim about the data. */}
                {state === 'loading'
                  ? 'Loading usage…'
                  : state === 'failed'
                    ? 'Usage could not be loaded (see above).'
                    : 'No chat usage in this range.'}
              </td>
            </tr>
          )}
        </tbody>
      </TableBox>
      {more > 0 && (
        <div className="flex flex-wrap items-center gap-3 text-sm text-slate-500">
          <span data-testid="usage-rows-shown">
            Showing {shown.toLocaleString()} of {countOf(newest.length, 'row')}, newest first
          </span>
          <Button size="sm" onClick={() => setShown((n) => n + TABLE_PAGE)}>
            Show {more} more
          </Button>
        </div>
      )}
    </>
  );
}

function Toggle<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T;
  options: T[];
  onChange: (v: T) => void;
}) {
  return (
    <div role="group" aria-label={label} className="flex items-center gap-1">
      <span className="mr-1 text-slate-600">{label}</span>
      {options.map((o) => (
        <Button key={o} size="sm" variant={value === o ? 'primary' : 'secondary'} aria-pressed={value === o} onClick={() => onChange(o)}>
          {o}
        </Button>
      ))}
    </div>
  );
}

/** One row per bucket of the range (empty buckets too), a column per group and metric. */
function chartRows(points: Point[], range: TimeRange, bucket: 'hour' | 'day'): Row[] {
  const size = bucket === 'hour' ? 3_600_000 : DAY;
  const first = range.start - (range.start % size);
  const rows = new Map<number, Row>();
  for (let t = first; t < range.end; t += size) rows.set(t, { t });
  for (const p of points) {
    const row = rows.get(p.bucket_start) ?? { t: p.bucket_start };
    row[`requests:${p.group}`] = p.requests;
    row[`tokens:${p.group}`] = p.prompt_tokens + p.completion_tokens;
    row[`errors:${p.group}`] = p.errors;
    row[`cost:${p.group}`] = Number(p.cost);
    rows.set(p.bucket_start, row);
  }
  return [...rows.values()].sort((a, b) => a.t - b.t);
}

/** Memoized: a render of the page for its totals or table (an urgent one) leaves the deferred charts as they are. */
const Chart = memo(function Chart({
  title,
  rows,
  groups,
  metric,
  decimals = false,
}: {
  title: string;
  rows: Row[];
  groups: [string, string][];
  metric: string;
  /** Amounts that are not whole (USD). */
  decimals?: boolean;
}) {
  const shown = useMemo(() => seriesOf(rows, groups, metric), [rows, groups, metric]);
  const colorOf = (g: string, i: number) => (g === OTHERS ? OTHERS_COLOR : COLORS[i % COLORS.length]);
  return (
    <section className="min-w-0 rounded-lg border border-slate-200 bg-surface p-4" aria-label={title}>
      <h2 className="mb-2 text-sm font-semibold">{title}</h2>
      <div className="h-56">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={shown.rows}>
            <CartesianGrid {...gridProps} />
            <XAxis {...timeAxis(rows.map((r) => r.t))} />
            {decimals ? <YAxis {...axisProps} width={64} /> : <YAxis {...countAxis} width={44} />}
            <Tooltip
              {...tooltipProps}
              labelFormatter={(t) => new Date(Number(t)).toLocaleString()}
              formatter={(v) => tooltipNumber(v, decimals ? 6 : 0)}
            />
            {shown.groups.map(([g, label], i) => (
              <Bar key={g} dataKey={`${metric}:${g}`} name={label} stackId="a" fill={colorOf(g, i)} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      {/* The legend under the chart, not in it: the plot keeps its height on a phone; long names are cut to a line. */}
      <ul aria-label={`${title} legend`} className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-[11px] text-slate-600">
        {shown.groups.map(([g, label], i) => (
          <li key={g} className="flex min-w-0 max-w-full items-center gap-1" title={label}>
            <span aria-hidden className="h-2.5 w-2.5 shrink-0 rounded-sm" style={{ background: colorOf(g, i) }} />
            <span className="max-w-[16rem] truncate">{label}</span>
          </li>
        ))}
      </ul>
    </section>
  );
});

/** Latency percentiles of every group together are not derivable from each group's: shown per group, p50 and p95. */
const Latency = memo(function Latency({
  points,
  groups,
  range,
  bucket,
}: {
  points: Point[];
  groups: [string, string][];
  range: TimeRange;
  bucket: 'hour' | 'day';
}) {
  const rows = useMemo(() => latencyRows(points, range, bucket), [points, range, bucket]);
  return (
    <section className="min-w-0 rounded-lg border border-slate-200 bg-surface p-4" aria-label="Latency">
      <h2 className="mb-2 text-sm font-semibold">Latency, ms (p50 solid, p95 dashed, time to first token dotted)</h2>
      <div className="h-56">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows}>
            <CartesianGrid {...gridProps} />
            <XAxis {...timeAxis(rows.map((r) => r.t!))} />
            <YAxis {...axisProps} width={48} />
            <Tooltip {...tooltipProps} labelFormatter={(t) => new Date(Number(t)).toLocaleString()} />
            {groups.flatMap(([g, label], i) => [
              <Line
                key={`p50${g}`}
                dataKey={`p50:${g}`}
                name={`${label} p50`}
                stroke={COLORS[i % COLORS.length]}
                dot={{ r: 2 }}
                connectNulls
                isAnimationActive={false}
              />,
              <Line
                key={`p95${g}`}
                dataKey={`p95:${g}`}
                name={`${label} p95`}
                stroke={COLORS[i % COLORS.length]}
                strokeDasharray="5 3"
                dot={{ r: 2 }}
                connectNulls
                isAnimationActive={false}
              />,
              <Line
                key={`ttft${g}`}
                dataKey={`ttft:${g}`}
                name={`${label} TTFT`}
                stroke={COLORS[i % COLORS.length]}
                strokeDasharray="1 3"
                dot={{ r: 2 }}
                connectNulls
                isAnimationActive={false}
              />,
            ])}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </section>
  );
});

/** The latency chart's rows: every bucket of the range, a column per group and percentile. */
function latencyRows(points: Point[], range: TimeRange, bucket: 'hour' | 'day') {
  const rows = chartRows([], range, bucket).map((r) => ({ ...r }) as Record<string, number>);
  const byT = new Map(rows.map((r) => [r.t!, r]));
  for (const p of points) {
    const row = byT.get(p.bucket_start);
    if (!row) continue;
    if (p.latency_p50_ms !== null) row[`p50:${p.group}`] = p.latency_p50_ms;
    if (p.latency_p95_ms !== null) row[`p95:${p.group}`] = p.latency_p95_ms;
    if (p.ttft_p50_ms !== null) row[`ttft:${p.group}`] = p.ttft_p50_ms;
  }
  return rows;
}

/** The points as CSV, one line per bucket and group. */
export function usageCsv(points: Point[], groupBy: UsageGroup): string {
  const head = [
    'bucket_start',
    { key: 'api_key_id', model: 'model', organization: 'organization_id' }[groupBy],
    'label',
    'requests',
    'prompt_tokens',
    'completion_tokens',
    'cost_usd',
    'errors',
    'latency_p50_ms',
    'latency_p95_ms',
    'ttft_p50_ms',
    'ttft_p95_ms',
  ];
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const lines = points.map((p) =>
    [
      new Date(p.bucket_start).toISOString(),
      p.group,
      p.label,
      p.requests,
      p.prompt_tokens,
      p.completion_tokens,
      p.cost,
      p.errors,
      p.latency_p50_ms,
      p.latency_p95_ms,
      p.ttft_p50_ms,
      p.ttft_p95_ms,
    ]
      .map(cell)
      .join(','),
  );
  return [head.join(','), ...lines].join('\n') + '\n';
}

function download(points: Point[], groupBy: UsageGroup) {
  const url = URL.createObjectURL(new Blob([usageCsv(points, groupBy)], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `triad-usage-${groupBy}.csv`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
