/**
 * Test helper: the CPU time processes used, from `/proc/<pid>/stat`
 * (user + system, in the kernel's clock ticks), which load distorts far
 * less than wall time: a process waiting for a core is not charged.
 * A tree counts every living descendant and the children each one already
 * reaped (`cutime` + `cstime`), so PostgreSQL's backends and a gateway's
 * upstream are in their parent's figure. Also: the whole machine's busy
 * and idle time, and pinning a process tree to a CPU (`taskset`).
 *
 * @module
 */

/** Clock ticks per second (`getconf CLK_TCK`: 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface Stat {
  readonly ppid: number;
  /** utime + stime. */
  readonly own: number;
  /** cutime + cstime: children this process waited for. */
  readonly reaped: number;
}

function stat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined; // gone
  }
  // The command name is in parentheses and may hold spaces: fields follow its last ')'.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const n = (i: number) => Number(fields[i - 3]); // i: the field's number in proc(5)
  return { ppid: n(4), own: n(14) + n(15), reaped: n(16) + n(17) };
}

/** `root` and its living descendants. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid)) continue;
    const ppid = stat(pid)?.ppid;
    if (ppid !== undefined) children.set(ppid, [...children.get(ppid) ?? [], pid]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...children.get(tree[i]!) ?? []);
  return tree;
}

/** CPU seconds of process `pid` alone (its threads, not its children). */
export function cpuSecondsOf(pid: number): number {
  return (stat(pid)?.own ?? 0) / TICKS_PER_SECOND;
}

/** CPU seconds of `root` and everything under it, reaped children included. */
export function treeCpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) {
    const s = stat(pid);
    if (s !== undefined) ticks += s.own + s.reaped;
  }
  return ticks / TICKS_PER_SECOND;
}

/** The machine's busy and idle CPU seconds so far (every process, from `/proc/stat`). */
export function machineCpuSeconds(): { busy: number; idle: number } {
  const [, ...ticks] = Deno.readTextFileSync("/proc/stat").split("\n")[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.map(Number);
  return {
    busy: (user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_SECOND,
    idle: (idle! + iowait!) / TICKS_PER_SECOND,
  };
}

/** Pins `pid`, its threads and its children to CPU `cpu`. */
export async function pinToCpu(pid: number, cpu: number): Promise<void> {
  for (const each of processTree(pid)) {
    const done = await new Deno.Command("taskset", {
      args: ["-a", "-p", "-c", String(cpu), String(each)],
      stdout: "null",
    }).output();
    if (!done.success) throw new Error(`taskset could not pin ${each} to CPU ${cpu}`);
  }
}
