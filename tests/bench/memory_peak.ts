/**
 * Peak memory of one turn whose tool returns a very large result (the
 * memory target of docs/performance.md). Runs one turn through `createRuntime` with the file store in a
 * temporary workspace: the scripted assistant calls one tool once, the
 * result is capped at the default 256KB, recorded, flushed and delivered,
 * and the turn ends. Then it prints one JSON line with this process's peak
 * RSS (the kernel's high-water mark, `VmHWM`). The tool's own process is
 * separate and not counted.
 *
 *     deno run --allow-all tests/bench/memory_peak.ts \
 *       [--mib N] [--source local|upstream|builtin]
 *
 * (`--allow-all` only so it may read `/proc/self/status`; a turn itself
 * needs `--allow-read --allow-write --allow-run --allow-env`, see
 * {@linkcode peakRss} for what it reports with those.)
 *
 * - `--mib N`: size of the result in MiB (default 100); `--mib 0` runs the
 *   same turn with a 1 KiB result: the baseline of a runtime that did the
 *   same work without the large result.
 * - `--source local` (default): `examples/tools/noisy_test_run.ts`, read from
 *   a pipe; `local-stream`: `tests/fixtures/memory/print_mib.ts`, which
 *   prints its output a chunk at a time (for sizes like 1 GiB that the
 *   example tool would have to build in memory first); `local-stderr`: the
 *   same tool printing to stderr and failing (the response is its status,
 *   then the stderr; `--mib` is the stderr's size); `local-json`: the same
 *   tool printing one JSON array, with `truncation = "json"` (the output is
 *   scanned as it streams, and cut as JSON); `file`: the builtin
 *   `fs_read_file` on a file of that size written beforehand; `upstream`: `big_report` of `examples/upstream_server.ts` over
 *   stdio MCP; `builtin`: a TypeScript tool returning the text from memory
 *   (its text is built in this process and counts towards the peak).
 * - `--spill`: the tool has `spill = true` (its output goes to the blob store).
 * - `--via runtime` (default): `createRuntime` with no observer; `cli`: the
 *   `query` command in this process (runtime plus terminal reporter, which
 *   renders the raw result and writes it to the results file); `cli-quiet`:
 *   the same with `--quiet`.
 *
 * `tests/e2e_memory_test.ts` runs it and asserts the target.
 *
 * @module
 */

import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { fakeTestLog } from "../../examples/fake_test_log.ts";
import { main } from "../../src/cli.ts";
import { captureCommandIo } from "../../src/commands/command_io.ts";
import { parseConfig } from "../../src/config/parse_config.ts";
import { createRuntime } from "../../src/runtime/create_runtime.ts";
import type { BuiltinTool } from "../../src/service/builtin/builtin_tool.ts";
import { fsReadFile } from "../../src/service/builtin/fs_read_file.ts";
import { FileStreamStore } from "../../src/stream/file_stream_store.ts";

/** What the script prints (one JSON line on stdout). */
export interface MemoryPeakReport {
  /** Where the result came from. */
  readonly source: Source;
  /** How the turn was run: `createRuntime`, or the `query` command (with or without `--quiet`). */
  readonly via: Via;
  /** UTF-8 bytes of the tool's result. */
  readonly resultBytes: number;
  /** UTF-8 bytes of the response as recorded (capped). */
  readonly recordedBytes: number;
  /** Peak resident set size of this process, in bytes. */
  readonly peakRssBytes: number;
  /** Where the peak was read: `VmHWM` (exact) or `ru_maxrss` (see {@linkcode peakRss}). */
  readonly peakFrom: "VmHWM" | "ru_maxrss";
  /** Resident set size at the end, in bytes. */
  readonly endRssBytes: number;
  /** How long the turn took, in ms. */
  readonly turnMs: number;
}

/** Where the result comes from; see the module doc. */
export type Source =
  | "local"
  | "local-stream"
  | "local-stderr"
  | "local-json"
  | "file"
  | "upstream"
  | "builtin";
/** How the turn runs; see the module doc. */
export type Via = "runtime" | "cli" | "cli-quiet";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const MIB = 1024 * 1024;
/** The baseline's result: small, but through the same tool and the same path. */
const BASELINE_BYTES = 1024;
/** What heads the response of `local-stderr`: its status and stderr's label. */
const STDERR_HEADING = "exit code 1\n\nstderr:\n";

/**
 * This process's peak resident set size in bytes, and where it was read.
 *
 * `VmHWM` of `/proc/self/status` is the high-water mark of this process's
 * own address space. Deno lets only `--allow-all` read `/proc/self`; without
 * it the script falls back to `getrusage`'s `ru_maxrss`, which Linux carries
 * over `exec` from the parent: right for a launch from a shell, but inflated
 * to the parent's peak when a large process (a test runner) spawns this one.
 */
export function peakRss(): { bytes: number; from: "VmHWM" | "ru_maxrss" } {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    if (match !== null) return { bytes: Number(match[1]) * 1024, from: "VmHWM" };
  } catch {
    // Not Linux, or not --allow-all: fall back to getrusage.
  }
  return { bytes: process.resourceUsage().maxRSS * 1024, from: "ru_maxrss" };
}

function flag(name: string): string | undefined {
  const index = Deno.args.indexOf(`--${name}`);
  return index < 0 ? undefined : Deno.args[index + 1];
}

/** `--spill`: the tool keeps its whole output in the blob store (`spill = true`). */
const SPILL = Deno.args.includes("--spill");

function configFor(source: Source): string {
  const table = toolTable(source);
  return SPILL ? `${table}\n[conversation.tools.'*']\nspill = true\n` : table;
}

function toolTable(source: Source): string {
  const deno = JSON.stringify(Deno.execPath());
  switch (source) {
    case "local":
      return `[conversation.tools.produce]
source = "local"
command = [${deno}, "run", "examples/tools/noisy_test_run.ts"]
`;
    case "local-stream":
      return `[conversation.tools.produce]
source = "local"
command = [${deno}, "run", "tests/fixtures/memory/print_mib.ts"]
`;
    case "local-stderr":
      return `[conversation.tools.produce]
source = "local"
command = [${deno}, "run", "tests/fixtures/memory/print_mib.ts", "stderr"]
`;
    case "local-json":
      return `[conversation.tools.produce]
source = "local"
command = [${deno}, "run", "tests/fixtures/memory/print_mib.ts", "json"]
truncation = "json"
`;
    case "upstream":
      return `[providers.mcp.reports]
type = "stdio"
command = ${deno}
arguments = ["run", "--quiet", "--allow-env", "examples/upstream_server.ts"]

[conversation.tools.produce]
source = "mcp.reports.big_report"
`;
    case "builtin":
    case "file":
      return "";
  }
}

/** The assistant: one call of `produce` in cycle 0, then done. */
function provider(megabytes: number) {
  return ({ cycle }: { readonly cycle: number }) =>
    Promise.resolve(
      cycle === 0
        ? {
          text: "Producing.",
          toolCalls: [{ id: "call_1", name: "produce", arguments: { megabytes } }],
        }
        : { text: "Done.", toolCalls: [] },
    );
}

/** Writes `bytes` bytes of log lines to `path`, 1 MiB at a time. */
async function writeLog(path: string, bytes: number): Promise<void> {
  const line = "test parser::case_0000 ... ok (0.01s)\n";
  const chunk = new TextEncoder().encode(line.repeat(Math.ceil(MIB / line.length))).subarray(
    0,
    MIB,
  );
  using file = await Deno.open(path, { write: true, create: true });
  for (let written = 0; written < bytes;) {
    const part = chunk.subarray(0, Math.min(MIB, bytes - written));
    for (let at = 0; at < part.length;) at += await file.write(part.subarray(at));
    written += part.length;
  }
}

/** One turn through createRuntime; returns the recorded response's size. */
async function turnViaRuntime(
  source: Source,
  resultBytes: number,
  workspace: string,
): Promise<number> {
  const builtin: BuiltinTool = {
    name: "produce",
    description: "Returns a big text.",
    inputSchema: { type: "object" },
    run: () => Promise.resolve(fakeTestLog(resultBytes)),
  };
  // `file`: the builtin fs_read_file on a file of the result's size, written beforehand.
  const file: BuiltinTool = {
    ...fsReadFile,
    name: "produce",
    run: (_args, context) => fsReadFile.run({ path: "big.log" }, { ...context, cwd: workspace }),
  };
  if (source === "file") await writeLog(join(workspace, "big.log"), resultBytes);
  const runtime = await createRuntime({
    workspace,
    cwd: REPO,
    config: parseConfig(configFor(source), "<memory_peak>"),
    ...(source === "builtin" ? { tools: [builtin] } : source === "file" ? { tools: [file] } : {}),
    provider: provider(resultBytes / MIB),
    noticeSink: { notice: () => {} },
  });
  try {
    const turn = await runtime.query("Produce the result");
    if (turn.status !== "finished") throw new Error(`the turn failed: ${turn.reason}`);
    const response = turn.messages.find((m) => m.role === "tool");
    if (response === undefined || response.role !== "tool") throw new Error("no tool message");
    // `local-stderr` fails on purpose: its response is the status, then the output.
    const failing = source === "local-stderr";
    if (response.isError !== failing || (failing && !response.content.startsWith(STDERR_HEADING))) {
      throw new Error(`unexpected response: ${response.content.slice(0, 500)}`);
    }
    const expectedBytes = resultBytes + (failing ? STDERR_HEADING.length : 0);
    const originalBytes = turn.notices[0]?.originalBytes ?? expectedBytes;
    if (originalBytes !== expectedBytes) {
      throw new Error(`the tool returned ${originalBytes} bytes, not ${expectedBytes}`);
    }
    return new TextEncoder().encode(response.content).length;
  } finally {
    await runtime.close();
  }
}

/**
 * One turn through the command line, in this process (`main(["query", …])`):
 * the runtime plus the terminal reporter, which renders the raw result and
 * writes it to the results file.
 */
async function turnViaCli(
  source: Source,
  resultBytes: number,
  workspace: string,
  quiet: boolean,
): Promise<number> {
  if (source === "builtin") throw new TypeError("--via cli needs --source local or upstream");
  await Deno.writeTextFile(join(workspace, "config.toml"), configFor(source));
  await Deno.writeTextFile(
    join(workspace, "script.toml"),
    `[[cycles]]\ntool_calls = [{ id = "call_1", name = "produce", arguments = { megabytes = ${
      resultBytes / MIB
    } } }]\n\n[[cycles]]\ntext = "Done."\n`,
  );
  const io = captureCommandIo({ env: {}, cwd: REPO });
  const args = ["query", "--workspace", workspace, "--script", join(workspace, "script.toml")];
  const code = await main([...args, ...(quiet ? ["--quiet"] : []), "Produce the result"], io);
  if (code !== 0) throw new Error(`query exited ${code}: ${io.err()}`);
  const [id] = await new FileStreamStore(join(workspace, "conversations")).list();
  const log = await Deno.readTextFile(join(workspace, "conversations", id!, "events.jsonl"));
  for (const line of log.trimEnd().split("\n")) {
    const event = JSON.parse(line) as { type: string; content?: string };
    if (event.type === "tool_call_response") return new TextEncoder().encode(event.content).length;
  }
  throw new Error("no tool_call_response recorded");
}

/**
 * Runs this script in a fresh process (peak RSS is per process) and returns
 * its report; throws when the script fails or could not read `VmHWM`.
 *
 * @param mib the result's size in MiB; 0 for the 1 KiB baseline
 * @param extra more flags (`--spill`)
 */
export async function measurePeak(
  source: Source,
  via: Via,
  mib: number,
  extra: readonly string[] = [],
): Promise<MemoryPeakReport> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      // Only --allow-all may read /proc/self/status (VmHWM). The fallback,
      // getrusage's ru_maxrss, would report the parent's peak: Linux carries
      // it over exec into the child.
      "--allow-all",
      fileURLToPath(import.meta.url),
      ...["--source", source, "--via", via, "--mib", String(mib), ...extra],
    ],
    cwd: REPO,
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  if (output.code !== 0) throw new Error(`memory_peak.ts failed (${output.code}): ${stderr}`);
  const report = JSON.parse(new TextDecoder().decode(output.stdout)) as MemoryPeakReport;
  if (report.peakFrom !== "VmHWM") throw new Error("memory_peak.ts could not read VmHWM");
  return report;
}

/** Runs the measured turn and returns its report. */
async function measure(
  source: Source,
  resultBytes: number,
  via: Via,
): Promise<MemoryPeakReport> {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_memory_" });
  try {
    const started = performance.now();
    const recordedBytes = via === "runtime"
      ? await turnViaRuntime(source, resultBytes, workspace)
      : await turnViaCli(source, resultBytes, workspace, via === "cli-quiet");
    const turnMs = performance.now() - started;
    const peak = peakRss();
    return {
      source,
      via,
      resultBytes,
      recordedBytes,
      peakRssBytes: peak.bytes,
      peakFrom: peak.from,
      endRssBytes: process.memoryUsage.rss(),
      turnMs: Math.round(turnMs),
    };
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

if (import.meta.main) {
  const source = (flag("source") ?? "local") as Source;
  const sources = [
    "local",
    "local-stream",
    "local-stderr",
    "local-json",
    "file",
    "upstream",
    "builtin",
  ];
  if (!sources.includes(source)) {
    throw new TypeError(`--source must be one of ${sources.join(", ")}, got ${source}`);
  }
  const via = (flag("via") ?? "runtime") as Via;
  if (!["runtime", "cli", "cli-quiet"].includes(via)) {
    throw new TypeError(`--via must be runtime, cli or cli-quiet, got ${via}`);
  }
  const mib = Number(flag("mib") ?? "100");
  if (!Number.isFinite(mib) || mib < 0) throw new TypeError(`--mib must be a size in MiB`);
  const report = await measure(source, mib === 0 ? BASELINE_BYTES : Math.round(mib * MIB), via);
  console.log(JSON.stringify(report));
}
