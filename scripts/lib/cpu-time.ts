import fs from 'node:fs';

/*
 * What a process spent of the CPU, read from Linux's /proc, for the benchmarks to print beside a
 * rate: its main thread's time (the JavaScript, the one thread a Node server's requests run on) and
 * the whole process's (V8's compiler and collector threads, PGlite's, libuv's pool besides). A rate
 * on a 2-core VM is also the load generator's and the model server's share of the cores; the CPU a
 * completion takes is the server's own. Elsewhere than Linux: null.
 */

/** The process's clock ticks a second (USER_HZ); 100 on every Linux this runs on. */
const TICKS_PER_S = 100;

type CpuSample = { mainNs: number; processNs: number };

function cpuSample(pid: number | undefined): CpuSample | null {
  if (!pid) return null;
  try {
    // schedstat: the nanoseconds the thread ran, the nanoseconds it waited for a CPU, its time slices.
    const mainNs = Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
    // stat: after the command's name in parentheses, utime and stime are the 12th and 13th fields.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const processNs = ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_S) * 1e9;
    return Number.isFinite(mainNs) && Number.isFinite(processNs) ? { mainNs, processNs } : null;
  } catch {
    return null;
  }
}

/** What a completion took: of the main thread and of the whole process, in µs. */
export type CpuUse = { mainUs: number; processUs: number };

/** The CPU a completion took between two samples over `completions`; null when either is missing. */
function cpuPerCompletion(before: CpuSample | null, after: CpuSample | null, completions: number): CpuUse | null {
  if (!before || !after || completions <= 0) return null;
  return {
    mainUs: (after.mainNs - before.mainNs) / 1e3 / completions,
    processUs: (after.processNs - before.processNs) / 1e3 / completions,
  };
}

/** Runs a load against the process `pid`, and says what each of its completions took of that process's CPU. */
export async function withCpuUse<T extends { requests: number }>(
  pid: number | undefined,
  run: () => Promise<T>,
): Promise<{ result: T; use: CpuUse | null }> {
  const before = cpuSample(pid);
  const result = await run();
  return { result, use: cpuPerCompletion(before, cpuSample(pid), result.requests) };
}
