'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ApiError } from '@/lib/client/api';
import { listTunnels, usePartner } from '@/lib/client/console';
import { useSession } from '@/lib/client/session';
import { countOf, formatDecimal, formatDuration, formatUsd } from '@/lib/client/format';
import { getDetail, getSeries, getStatement, listNodes, type Series, type Statement, type StatsAuth } from '@/lib/client/stats';
import { addDecimals } from '@/lib/core/decimal';
import { Button } from '@/components/ui/button';
import { axisProps, countAxis, gridProps, timeAxis, tooltipNumber, tooltipProps } from '@/components/ui/chart-parts';
import { NeedsCredential } from '@/components/ui/field';
import { ConnectPanel, TunnelState } from '@/components/console/node-connect';
import { bucketOf, RangePicker, useUrlRange } from './range-picker';
import { StatusBadge } from './status-badge';
import { type MeasuredPoint, measure } from '@/lib/client/uptime';
import { useUrlState } from '@/lib/client/url-state';

/** The page of the node named by the address (/stats/<node>: the page is one for every node, see app/(dashboard)/stats/node). */
export function NodeAtPath() {
  const segment = usePathname().split('/')[2] ?? '';
  let partnerNodeId = segment;
  try {
    partnerNodeId = decodeURIComponent(segment);
  } catch {
    // a malformed escape: the segment as it is (no such node)
  }
  return <NodeView partnerNodeId={partnerNodeId} />;
}

export function NodeView({ partnerNodeId }: { partnerNodeId: string }) {
  const { session, loading: sessionLoading } = useSession();
  const { partner, loading } = usePartner(session?.role === 'org');
  const auth: StatsAuth = { partnerId: partner?.id ?? '' };
  const ready = !!partner;
  const [range, setRange] = useUrlRange('7 d');
  const bucket = bucketOf(range);

  const entry = useQuery({
    queryKey: ['stats-node', auth, partnerNodeId],
    queryFn: async () => (await listNodes(auth, { partnerNodeId })).entries[0]!,
    enabled: ready,
    refetchInterval: 30_000,
  });
  const detail = useQuery({
    queryKey: ['stats-detail', auth, partnerNodeId],
    queryFn: () => getDetail(auth, partnerNodeId),
    enabled: ready,
    refetchInterval: 30_000,
  });
  const tunnels = useQuery({
    queryKey: ['partner-tunnels', auth.partnerId],
    queryFn: () => listTunnels(auth.partnerId),
    enabled: ready,
    refetchInterval: 10_000,
  });
  const series = useQuery({
    queryKey: ['stats-series', auth, partnerNodeId, range.start, range.end, bucket],
    queryFn: () => getSeries(auth, { partnerNodeId, start: range.start, end: range.end, bucket }),
    enabled: ready,
    placeholderData: keepPreviousData,
  });

  if (sessionLoading || loading) return <div aria-label="Loading" className="h-64 animate-pulse rounded-lg bg-slate-200" />;
  if (!ready) return <NeedsCredential what="an organization's session with a partner" />;
  const error = (entry.error ?? detail.error) as ApiError | null;
  if (error) {
    return (
      <div role="alert" className="space-y-2 rounded-md bg-rose-50 p-4 text-sm text-rose-800">
        <p>
          {error.status === 400
            ? `This partner has no node “${partnerNodeId}”.`
            : error.status === 401
              ? 'The session has ended, or the partner is no longer the organization’s.'
              : error.explanation}
        </p>
        <Link href="/stats" className="underline">
          Back to the fleet
        </Link>
      </div>
    );
  }

  const s = series.data;
  // A share of the time passed: the hour under way by its elapsed part, hours not begun left out.
  const m = s ? measure(s) : null;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <Link href="/stats" className="text-sm text-indigo-700 hover:underline">
            ← Fleet
          </Link>
          <h1 className="mt-1 text-2xl font-semibold tracking-tight">{entry.data?.public_name ?? partnerNodeId}</h1>
          <p className="font-mono text-xs text-slate-500">
            {partnerNodeId} {entry.data?.ip && `· ${entry.data.ip}`} {entry.data && `· ${entry.data.public_id}`}
          </p>
        </div>
        <div className="flex flex-wrap gap-6 text-sm">
          <div>
            <div className="text-xs uppercase text-slate-500">Status</div>
            {detail.data ? <StatusBadge status={detail.data.connection_status} /> : '…'}
          </div>
          <div>
            <div className="text-xs uppercase text-slate-500">Total uptime</div>
            <div className="font-semibold">{detail.data ? formatDuration(detail.data.total_uptime) : '…'}</div>
          </div>
          <div>
            <div className="text-xs uppercase text-slate-500">Units shared</div>
            <div className="font-semibold">{entry.data ? formatDecimal(entry.data.unit_shared, 3) : '…'}</div>
          </div>
          <div>
            <div className="text-xs uppercase text-slate-500">USD earned</div>
            <div className="font-semibold">{entry.data ? formatUsd(entry.data.usd_earned) : '…'}</div>
          </div>
        </div>
      </div>

      <RangePicker key={`${range.label}-${range.start}`} value={range} onChange={setRange} />

      <section className="rounded-lg border border-slate-200 bg-surface p-4">
        <div className="mb-3 flex flex-wrap items-baseline gap-4">
          <h2 className="font-semibold">Uptime per {s?.bucket_ms === 86_400_000 ? 'day (UTC)' : 'hour'}</h2>
          <span data-testid="range-uptime" className="text-sm text-slate-700">
            {m ? `${m.percent.toFixed(1)} % up · ${formatDuration(m.uptime)} of ${formatDuration(m.elapsed)}` : 'Loading…'}
          </span>
          {s && m && (
            <Button size="sm" className="ml-auto" onClick={() => downloadCsv(s, m.points)}>
              Export CSV
            </Button>
          )}
        </div>
        {series.isError ? (
          <p role="alert" className="text-sm text-rose-700">
            {(series.error as ApiError).explanation}
          </p>
        ) : !s || !m ? (
          <div className="h-64 animate-pulse rounded bg-slate-100" />
        ) : (
          <div className="h-64" data-testid="uptime-chart" data-points={m.points.length} data-range-start={s.started_at}>
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={m.points.map((p) => ({ t: p.start, pct: Math.round(1000 * p.share) / 10 }))} barCategoryGap={0}>
                <CartesianGrid {...gridProps} />
                <XAxis {...timeAxis(m.points.map((p) => p.start))} />
                <YAxis {...axisProps} domain={[0, 100]} unit="%" width={44} />
                <Tooltip
                  {...tooltipProps}
                  labelFormatter={(t) => new Date(Number(t)).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
                  formatter={(v) => [`${v} %`, 'uptime']}
                />
                <Bar dataKey="pct" fill="#4f46e5" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
        )}
      </section>

      {s && m && s.bucket_ms < 86_400_000 && <HeatStrip points={m.points} />}
      {s && <Served series={s} />}
      <EarningsStatement auth={auth} partnerNodeId={partnerNodeId} />
      <section aria-label="Node agent" className="space-y-2 rounded-lg border border-slate-200 bg-surface p-4">
        <h2 className="font-semibold">Node agent</h2>
        {tunnels.data?.find((t) => t.partner_node_id === partnerNodeId) ? (
          <TunnelState tunnel={tunnels.data.find((t) => t.partner_node_id === partnerNodeId)} />
        ) : (
          <p className="text-sm text-slate-600">No agent has connected as this node yet.</p>
        )}
        <ConnectPanel node={partnerNodeId} chosen={false} />
      </section>
    </div>
  );
}

/** What the node served through a provider linked to it (completions, tokens, earnings), in the range. */
function Served({ series }: { series: Series }) {
  const requests = series.points.reduce((n, p) => n + p.served.requests, 0);
  const tokens = series.points.reduce((n, p) => n + p.served.tokens, 0);
  const usd = series.points.reduce((sum, p) => addDecimals(sum, p.served.usd), '0'); // exact, like the totals above
  return (
    <section className="rounded-lg border border-slate-200 bg-surface p-4" data-testid="served">
      <div className="mb-3 flex flex-wrap items-baseline gap-4">
        <h2 className="font-semibold">Served completions</h2>
        <span data-testid="served-total" className="text-sm text-slate-700">
          {requests
            ? `${countOf(requests, 'completion')} · ${countOf(tokens, 'token')} · ${formatUsd(usd)} earned in this range`
            : 'This node served no completions in this range (a provider linked to it serves them).'}
        </span>
      </div>
      {requests > 0 && (
        <div className="h-48" data-testid="served-chart">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={series.points.map((p) => ({ t: p.start, tokens: p.served.tokens }))} barCategoryGap={0}>
              <CartesianGrid {...gridProps} />
              <XAxis {...timeAxis(series.points.map((p) => p.start))} />
              <YAxis {...countAxis} width={44} />
              <Tooltip
                {...tooltipProps}
                labelFormatter={(t) => new Date(Number(t)).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
                formatter={(v) => [tooltipNumber(v), 'tokens served']}
              />
              <Bar dataKey="tokens" fill="#059669" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </section>
  );
}

/**
 * The node's statement (design §17): what it served and earned per calendar month of its whole
 * history, or per UTC day of the last 31; the periods add up to what it earned. Exported as CSV.
 */
function EarningsStatement({ auth, partnerNodeId }: { auth: StatsAuth; partnerNodeId: string }) {
  const [view, setView] = useUrlState({ statement: 'month' });
  const per = view.statement === 'day' ? 'day' : 'month';
  const setBucket = (b: 'day' | 'month') => setView({ statement: b });
  const statement = useQuery({
    queryKey: ['stats-statement', auth, partnerNodeId, per],
    queryFn: () =>
      getStatement(auth, {
        partnerNodeId,
        bucket: per,
        ...(per === 'day' ? { start: Date.now() - 30 * 86_400_000, end: Date.now() } : {}),
      }),
    refetchInterval: 60_000,
  });
  const st = statement.data;
  const label = (start: number) =>
    new Date(start).toLocaleDateString(
      undefined,
      per === 'day' ? { dateStyle: 'medium', timeZone: 'UTC' } : { year: 'numeric', month: 'long', timeZone: 'UTC' },
    );
  return (
    <section className="space-y-3 rounded-lg border border-slate-200 bg-surface p-4" aria-label="Earnings statement">
      <div className="flex flex-wrap items-baseline gap-3">
        <h2 className="font-semibold">Earnings statement</h2>
        <div role="group" aria-label="Statement per" className="flex gap-1">
          {(['month', 'day'] as const).map((b) => (
            <Button key={b} size="sm" variant={per === b ? 'primary' : 'secondary'} aria-pressed={per === b} onClick={() => setBucket(b)}>
              per {b}
            </Button>
          ))}
        </div>
        {st && (
          <Button size="sm" className="ml-auto" aria-label="Export the statement as CSV" onClick={() => downloadStatement(st)}>
            Export CSV
          </Button>
        )}
      </div>
      {statement.isError ? (
        <p role="alert" className="text-sm text-rose-700">
          {(statement.error as ApiError).explanation}
        </p>
      ) : !st ? (
        <div className="h-24 animate-pulse rounded bg-slate-100" />
      ) : (
        <>
          {/* On a phone its key columns stay on screen (design §19): the tokens are in the CSV and the range's summary above. */}
          <div className="overflow-x-auto">
            <table className="w-full text-sm" aria-label="Statement">
              <thead className="border-b border-slate-200 text-left text-xs uppercase text-slate-500">
                <tr>
                  <th className="px-2 py-1">{per === 'day' ? 'Day (UTC)' : 'Month (UTC)'}</th>
                  <th className="px-2 py-1 text-right">Completions</th>
                  <th className="hidden px-2 py-1 text-right sm:table-cell">Tokens</th>
                  <th className="px-2 py-1 text-right">USD earned</th>
                </tr>
              </thead>
              <tbody className="tabular-nums">
                {[...st.periods]
                  .reverse()
                  .filter((p) => per === 'month' || p.requests > 0)
                  .map((p) => (
                    <tr key={p.start} className="border-b border-slate-100">
                      <td className="px-2 py-1">{label(p.start)}</td>
                      <td className="px-2 py-1 text-right">{p.requests.toLocaleString()}</td>
                      <td className="hidden px-2 py-1 text-right sm:table-cell">{p.tokens.toLocaleString()}</td>
                      <td className="px-2 py-1 text-right">{p.usd_earned}</td>
                    </tr>
                  ))}
              </tbody>
              <tfoot className="font-medium tabular-nums">
                <tr>
                  <td className="px-2 py-1">Total</td>
                  <td className="px-2 py-1 text-right">{st.total.requests.toLocaleString()}</td>
                  <td className="hidden px-2 py-1 text-right sm:table-cell">{st.total.tokens.toLocaleString()}</td>
                  <td className="px-2 py-1 text-right" data-testid="statement-total">
                    {st.total.usd_earned}
                  </td>
                </tr>
              </tfoot>
            </table>
          </div>
          <p className="text-xs text-slate-500">
            {per === 'month'
              ? `Its whole history: the total is everything it earned ($${st.usd_earned}).`
              : 'The last 31 days (days with completions). Earnings are the completions’ cost less the network’s fee.'}
          </p>
        </>
      )}
    </section>
  );
}

function downloadStatement(st: Statement) {
  const lines = [
    'period_start,period_end,requests,tokens,usd_earned',
    ...st.periods.map(
      (p) => `${new Date(p.start).toISOString()},${new Date(p.end).toISOString()},${p.requests},${p.tokens},${p.usd_earned}`,
    ),
  ];
  const url = URL.createObjectURL(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `earnings-${st.partner_node_id}-per-${st.bucket}.csv`;
  a.click();
  URL.revokeObjectURL(url);
}

/** Availability as a day-by-hour grid: one row a day, one cell an hour (local time). */
function HeatStrip({ points }: { points: MeasuredPoint[] }) {
  const days = new Map<string, { label: string; cells: (number | null)[] }>();
  for (const p of points) {
    const d = new Date(p.start);
    const key = d.toDateString();
    if (!days.has(key))
      days.set(key, {
        label: d.toLocaleDateString(undefined, { weekday: 'short', month: 'short', day: 'numeric' }),
        cells: Array(24).fill(null),
      });
    days.get(key)!.cells[d.getHours()] = p.share;
  }
  const color = (f: number | null) =>
    f === null
      ? 'bg-transparent'
      : f >= 0.99
        ? 'bg-emerald-500'
        : f >= 0.75
          ? 'bg-emerald-300'
          : f >= 0.25
            ? 'bg-amber-300'
            : f > 0
              ? 'bg-rose-300'
              : 'bg-slate-200';
  return (
    <section className="rounded-lg border border-slate-200 bg-surface p-4" aria-label="Availability by day and hour">
      <h2 className="mb-3 font-semibold">Availability by day and hour</h2>
      <div className="space-y-0.5" data-testid="heat-strip">
        {[...days.values()].map((day) => (
          <div key={day.label} className="flex items-center gap-2">
            <span className="w-28 shrink-0 text-xs text-slate-500">{day.label}</span>
            <div className="grid flex-1 grid-cols-24 gap-0.5" style={{ gridTemplateColumns: 'repeat(24, minmax(0, 1fr))' }}>
              {day.cells.map((f, h) => (
                <div
                  key={h}
                  className={`h-3 rounded-sm ${color(f)}`}
                  title={f === null ? '' : `${String(h).padStart(2, '0')}:00 — ${Math.round(f * 100)} %`}
                />
              ))}
            </div>
          </div>
        ))}
      </div>
      <p className="mt-2 text-xs text-slate-500">Green: up the whole hour · amber: part · red: little · grey: down.</p>
    </section>
  );
}

/** The hours that have begun: their uptime, the part of them that had passed, and the share of it up. */
function downloadCsv(s: Series, points: MeasuredPoint[]) {
  const lines = [
    'bucket_start,bucket_start_ms,uptime_ms,elapsed_ms,uptime_percent',
    ...points.map((p) => `${new Date(p.start).toISOString()},${p.start},${p.uptime},${p.elapsed},${(100 * p.share).toFixed(2)}`),
  ];
  const url = URL.createObjectURL(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `uptime-${s.partner_node_id}-${new Date(s.started_at).toISOString().slice(0, 13)}.csv`;
  a.click();
  URL.revokeObjectURL(url);
}
