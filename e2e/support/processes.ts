import fs from 'node:fs';

/*
 * Processes as Linux's /proc shows them: a process's children, for the lifecycle tests that check what
 * a server started (the package's launcher, the demo's agents).
 */

/** The fields of /proc/PID/stat after the command's name (state, parent's pid, …); null when the process is gone. */
function stat(pid: number | string): string[] | null {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return null;
  }
}

/** The pids of a process's children. */
export const childrenOf = (pid: number): number[] =>
  fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && stat(d)?.[1] === String(pid))
    .map(Number);
