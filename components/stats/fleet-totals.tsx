import { formatDecimal, formatDuration, formatUsd } from '@/lib/client/format';
import type { Summary } from '@/lib/stats/schema';

/** The partner's fleet at a glance: nodes, connected now, total uptime, units shared, USD earned (placeholders while loading). */
export function FleetTotals({ summary }: { summary?: Summary }) {
  return (
    // On a phone the units shared (a long number: millions, three decimals) take the row's width, the others fill in around.
    <div className="grid grid-flow-row-dense grid-cols-2 gap-3 md:grid-cols-5" aria-label="Fleet totals">
      <Stat label="Nodes" value={summary && String(summary.nodes)} />
      <Stat
        label="Connected now"
        value={summary && `${summary.connected}`}
        hint={summary && summary.nodes ? `${Math.round((100 * summary.connected) / summary.nodes)} %` : undefined}
      />
      <Stat label="Total uptime" value={summary && formatDuration(summary.total_uptime)} />
      <Stat label="Units shared" value={summary && formatDecimal(summary.unit_shared, 3)} wide />
      <Stat label="USD earned" value={summary && formatUsd(summary.usd_earned)} />
    </div>
  );
}

/** One figure; `wide`: two columns on a phone. A figure longer than its box wraps rather than widen the page. */
function Stat({ label, value, hint, wide }: { label: string; value?: string; hint?: string; wide?: boolean }) {
  return (
    <div className={`min-w-0 rounded-lg border border-slate-200 bg-surface p-4 shadow-sm ${wide ? 'col-span-2 md:col-span-1' : ''}`}>
      <div className="text-xs uppercase text-slate-500">{label}</div>
      {value === undefined ? (
        <div className="mt-2 h-6 w-20 animate-pulse rounded bg-slate-200" />
      ) : (
        <div className="mt-1 text-xl font-semibold tabular-nums [overflow-wrap:anywhere]">
          {value} {hint && <span className="text-sm font-normal text-slate-500">{hint}</span>}
        </div>
      )}
    </div>
  );
}
