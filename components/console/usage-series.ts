/** A chart's row: a bucket's start (`t`) and a column `${metric}:${group}` per group and metric. */
export type Row = { t: number } & Record<string, number>;

/** How many groups a usage chart draws apiece; the others are one series. */
export const MAX_SERIES = 7;
/** The group that stands for the others. */
export const OTHERS = '__others';

/**
 * The series a chart of `metric` draws: every group when they are few, else the MAX_SERIES with the most
 * over the range and one "Others (n)" that sums the rest bucket by bucket — so that the stacks keep
 * their totals, the colours stay apart, and the legend stays a few lines however many organizations or
 * keys there are (dozens of them made it taller than the chart, over the page's navigation). The table
 * under the charts lists every group.
 */
export function seriesOf(rows: Row[], groups: [string, string][], metric: string): { rows: Row[]; groups: [string, string][] } {
  if (groups.length <= MAX_SERIES + 1) return { rows, groups };
  const value = (r: Row, g: string) => r[`${metric}:${g}`] ?? 0;
  const ranked = groups
    .map(([g, label]) => ({ g, label, total: rows.reduce((sum, r) => sum + value(r, g), 0) }))
    .sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));
  const kept = ranked.slice(0, MAX_SERIES);
  const rest = ranked.slice(MAX_SERIES);
  return {
    rows: rows.map((r) => ({ ...r, [`${metric}:${OTHERS}`]: rest.reduce((sum, x) => sum + value(r, x.g), 0) })),
    groups: [...kept.map((x): [string, string] => [x.g, x.label]), [OTHERS, `Others (${rest.length})`]],
  };
}
