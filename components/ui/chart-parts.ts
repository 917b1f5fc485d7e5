import { timeTicks } from '@/lib/client/format';

/*
 * The charts' grid, axes and tooltip (Recharts) in the page's theme: their colours are app/globals.css's
 * --chart-* variables (Recharts' own greys in the light theme, the dark palette's in the dark one), given as
 * props, so no stylesheet has to outweigh the inline styles Recharts writes.
 */
export const gridProps = { strokeDasharray: '3 3', vertical: false, stroke: 'var(--chart-grid)' } as const;

export const axisProps = { stroke: 'var(--chart-axis)', tick: { fill: 'var(--chart-text)' }, fontSize: 11 } as const;

/** A count in a tick's few characters, in the reader's locale (`locale`: another one): 260K rather than 260000. */
export const countTick = (v: number, locale?: string) => v.toLocaleString(locale, { notation: 'compact', maximumFractionDigits: 1 });
/** Props of a y-axis of counts (requests, tokens). */
export const countAxis = { ...axisProps, allowDecimals: false, tickFormatter: (v: number) => countTick(v) } as const;

/** A tooltip's number as people read one: 1,234,567 (amounts of money to `maxFraction` places at most). */
export const tooltipNumber = (v: unknown, maxFraction = 0, locale?: string) =>
  typeof v === 'number' ? v.toLocaleString(locale, { maximumFractionDigits: maxFraction }) : String(v);

export const tooltipProps = {
  contentStyle: { backgroundColor: 'var(--chart-tooltip)', borderColor: 'var(--chart-tooltip-border)' },
  cursor: { fill: 'var(--chart-cursor)', stroke: 'var(--chart-cursor)' },
} as const;

/** Props of the x-axis of a chart of buckets: one tick a day (or a few hours within a day), never a label twice. */
export function timeAxis(times: number[]) {
  const { ticks, label } = timeTicks(times);
  return { ...axisProps, dataKey: 't', ticks, tickFormatter: label, interval: 'preserveStartEnd' as const, minTickGap: 16 };
}
