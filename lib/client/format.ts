/** "expires in 3 h", "expired 2 d ago": the coarsest unit that is at least 1. */
export function relativeExpiry(expiredAtS: number, nowMs = Date.now()): { text: string; expired: boolean } {
  const diff = expiredAtS * 1000 - nowMs;
  const abs = Math.abs(diff);
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  const [size, unit] = units.find(([size]) => abs >= size) ?? [1000, 's'];
  const n = Math.floor(abs / size);
  return diff > 0
    ? { text: `expires in ${n} ${unit}`, expired: false }
    : { text: n ? `expired ${n} ${unit} ago` : 'expired', expired: true };
}

/** A value for <input type="datetime-local"> in the browser's time zone. */
export function toDateTimeLocal(unixS: number): string {
  const d = new Date(unixS * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromDateTimeLocal(value: string): number | null {
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** Random text from the browser's CSPRNG, base64url: `bytes` bytes of entropy. */
export function randomSecret(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...buf))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

export function randomDigits(n: number): string {
  const buf = crypto.getRandomValues(new Uint32Array(n));
  return Array.from(buf, (x) => String(x % 10)).join('');
}

/** Milliseconds as "3 d 4 h", "5 h 12 min", "42 s". */
export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min`;
  return `${s} s`;
}

/** Decimal text with grouping, keeping every digit it has (no floating point). */
export function formatDecimal(text: string, maxFraction = 6, minFraction = 0): string {
  const [whole, frac = ''] = text.split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const f = frac.slice(0, maxFraction).replace(/0+$/, '').padEnd(minFraction, '0');
  return f ? `${grouped}.${f}` : grouped;
}

/** A count and its noun, singular for one: "1 node", "40 nodes", "1,204 tokens" (`plural` for a noun not made with -s). */
export const countOf = (n: number, noun: string, plural = `${noun}s`) => `${n.toLocaleString()} ${n === 1 ? noun : plural}`;

/** Dollars with cents, truncated (never rounded up). */
export const formatUsd = (text: string) => `$${formatDecimal(text, 2, 2)}`;

export const HOUR_MS = 3_600_000;
export const floorHour = (ms: number) => ms - (ms % HOUR_MS);

/**
 * Ticks for a chart's time axis over bucket starts `times` (ascending, ms): over more than a day and
 * a half, the first bucket of each local day (every n-th day when there are more than `max`),
 * labelled "Nov 17"; within that, every n-th hour, labelled "14:00" — with the weekday ("Wed 14:00")
 * when the range holds the same hour twice. No two ticks share a label (an axis that labelled each
 * hourly bar with its day repeated "Nov 17, Nov 17, Nov 18…").
 */
export function timeTicks(times: number[], max = 8): { ticks: number[]; label: (t: number) => string } {
  if (!times.length) return { ticks: [], label: String };
  const span = times.at(-1)! - times[0]!;
  const spansDays = span >= 36 * HOUR_MS;
  const key = (t: number) => {
    const d = new Date(t);
    return spansDays ? `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}` : `${d.getDate()}-${d.getHours()}`;
  };
  const firsts: number[] = [];
  let last = '';
  for (const t of times) {
    const k = key(t);
    if (k !== last) firsts.push(t);
    last = k;
  }
  const step = Math.ceil(firsts.length / max);
  const ticks = firsts.filter((_, i) => i % step === 0);
  const hour = (t: number) => new Date(t).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const label = spansDays
    ? (t: number) => new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
    : span >= 24 * HOUR_MS
      ? (t: number) => `${new Date(t).toLocaleDateString(undefined, { weekday: 'short' })} ${hour(t)}`
      : hour;
  return { ticks, label };
}
