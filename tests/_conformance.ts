/**
 * Test helper: the MCP conformance suite 0.2.0-alpha.12
 * (`@modelcontextprotocol/conformance-next` in deno.json) against a server's
 * URL, for one protocol revision's requirements (`--requirements`) or one
 * scenario, read back per scenario from the suite's output folder. The suite
 * runs under Deno (under Node 20 it fails to load); it has no stdio target,
 * only `--url`. Against a local server a whole revision takes about 4 s.
 * Also: how to start the v2 conformance upstream
 * (`tests/fixtures/gateway/conformance_v2/server.ts`) in each of its modes.
 *
 * @module
 */

import { StreamLines } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";

/** The suite, as locked in deno.lock. */
export const CONFORMANCE_SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";

/** The v2 conformance upstream's entry point. */
export const UPSTREAM_V2 = new URL("./fixtures/gateway/conformance_v2/server.ts", import.meta.url)
  .pathname;

/**
 * Deno's arguments that run the v2 conformance upstream over stdio, serving
 * both eras; add `--protocol 2026-07-28` or `--protocol 2025-11-25` for one
 * era, `--http 0` for HTTP (see the fixture's summary).
 */
export const UPSTREAM_V2_ARGS: readonly string[] = [
  "run",
  "--quiet",
  "--allow-env",
  "--allow-net=127.0.0.1",
  "--allow-read",
  UPSTREAM_V2,
];

/** The v2 conformance upstream serving HTTP on a free loopback port; disposing it stops it. */
export interface HttpUpstream extends AsyncDisposable {
  /** Its MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: URL;
}

/** Starts the v2 conformance upstream over HTTP with `args` (e.g. `["--protocol", "2026-07-28"]`). */
export async function startUpstreamV2(
  args: readonly string[] = [],
  run: readonly string[] = UPSTREAM_V2_ARGS,
): Promise<HttpUpstream> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...run, "--http", "0", ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = new StreamLines(child.stdout);
  const stop = async () => {
    child.kill("SIGTERM");
    await child.status;
    await lines.ended;
  };
  try {
    const [, port] = await lines.waitFor(/^listening on (\d+)$/) as [string, string];
    return { url: new URL(`http://127.0.0.1:${port}/mcp`), [Symbol.asyncDispose]: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The protocol revisions the suite has frozen requirement sets for. */
export type Requirements = "2026-07-28" | "2025-11-25";

/** One check of a scenario, as the suite writes it to `checks.json`. */
export interface ConformanceCheck {
  readonly id: string;
  readonly name?: string;
  /** `SUCCESS`, `FAILURE`, `WARNING`, `INFO`, `SKIPPED`. */
  readonly status: string;
  readonly errorMessage?: string;
}

/** One scenario's outcome. */
export interface ScenarioResult {
  readonly name: string;
  readonly checks: readonly ConformanceCheck[];
  /** No check failed. (A scenario the suite skipped whole has no checks and passes.) */
  readonly passed: boolean;
  /** `id: message` of each failed check. */
  readonly failures: readonly string[];
  /**
   * The suite runs it but does not score it for the requirements asked
   * (extensions, pending scenarios, scenarios added after the revision):
   * its failures do not fail the run.
   */
  readonly scored: boolean;
}

/** What one run of the suite showed. */
export interface ConformanceRun {
  /** The suite's exit code: 0 when every scored scenario passed. */
  readonly code: number;
  readonly scenarios: ReadonlyMap<string, ScenarioResult>;
  /** The suite's stdout and stderr (its own summary included). */
  readonly output: string;
  /** Wall time of the run, in ms (for notes, never asserted). */
  readonly elapsedMs: number;
  /** Scored scenarios that failed, each with its failures, one per line; "" when none. */
  readonly report: string;
}

/** Options of {@linkcode runConformance}. */
export interface ConformanceOptions {
  /** Run exactly the scenarios this revision requires. Default: `"2026-07-28"` (ignored with `scenario`). */
  readonly requirements?: Requirements;
  /** Run this one scenario instead, at `specVersion`. Default: none. */
  readonly scenario?: string;
  /** The revision `scenario` runs at. Default: `requirements`' value. */
  readonly specVersion?: Requirements;
  /** The suite's per-scenario timeout, in ms. Default: the suite's (30 s). */
  readonly scenarioTimeoutMs?: number;
}

/** `server-<scenario>-<ISO time with dashes>` → `<scenario>`. */
const scenarioOf = (folder: string) =>
  folder.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");

/** The names the suite's summary lists under "Not scored for …". */
function unscored(output: string): Set<string> {
  const section = output.split(/^Not scored for /m)[1] ?? "";
  return new Set([...section.matchAll(/^\s+[✓✗] (\S+) \(/gm)].map((match) => match[1]!));
}

/** Runs the suite against `url`; see the module summary. */
export async function runConformance(
  url: URL,
  options: ConformanceOptions = {},
): Promise<ConformanceRun> {
  const requirements = options.requirements ?? "2026-07-28";
  const out = await Deno.makeTempDir({ prefix: "spillway-conformance-" });
  const selection = options.scenario === undefined
    ? ["--requirements", requirements]
    : ["--scenario", options.scenario, "--spec-version", options.specVersion ?? requirements];
  const timeout = options.scenarioTimeoutMs === undefined
    ? []
    : ["--timeout", String(options.scenarioTimeoutMs)];
  const started = performance.now();
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", CONFORMANCE_SUITE, "server", "--url", url.href]
        .concat(selection, timeout, ["-o", out]),
      cwd: new URL("..", import.meta.url).pathname,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    const output = `${decoder.decode(run.stdout)}\n${decoder.decode(run.stderr)}`;
    const notScored = unscored(output);
    const scenarios = new Map<string, ScenarioResult>();
    for await (const entry of Deno.readDir(out)) {
      const name = scenarioOf(entry.name);
      const checks: ConformanceCheck[] = JSON.parse(
        await Deno.readTextFile(join(out, entry.name, "checks.json")),
      );
      const failures = checks.filter((check) => check.status === "FAILURE")
        .map((check) => `${check.id}: ${check.errorMessage ?? "(no message)"}`);
      scenarios.set(name, {
        name,
        checks,
        passed: failures.length === 0,
        failures,
        scored: !notScored.has(name),
      });
    }
    if (scenarios.size === 0) throw new Error(`the suite ran no scenario:\n${output}`);
    const report = [...scenarios.values()].filter((s) => s.scored && !s.passed)
      .map((s) => `${s.name}: ${s.failures.join("; ")}`).join("\n");
    return { code: run.code, scenarios, output, elapsedMs: performance.now() - started, report };
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}
