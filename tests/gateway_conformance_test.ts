/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`) against
 * `spillway serve --http` in front of the conformance upstream (over
 * stdio), and against that upstream directly (over HTTP). Every scenario the
 * upstream passes directly passes through the gateway too; the ones the
 * gateway is for (initialize, ping, logging, tools/list and every
 * `tools-call-*`, relays included) pass in both.
 */

import assert from "node:assert/strict";
import { spawnHttpServe, StreamLines, UPSTREAM_ARGS } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";

/** The suite, as locked in deno.lock. */
const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";

/** Scenarios that must pass both directly and through the gateway. */
const REQUIRED = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
];

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

/** Runs the active suite against `url`; returns each scenario's checks. */
async function runSuite(url: URL): Promise<Map<string, Check[]>> {
  const out = await Deno.makeTempDir({ prefix: "spillway-conformance-" });
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", SUITE, "server", "--url", url.href, "-o", out],
      cwd: new URL("..", import.meta.url).pathname,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const scenarios = new Map<string, Check[]>();
    for await (const entry of Deno.readDir(out)) {
      // `server-<scenario>-<ISO time>`
      const name = entry.name.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
      const checks = JSON.parse(await Deno.readTextFile(join(out, entry.name, "checks.json")));
      scenarios.set(name, checks);
    }
    if (scenarios.size === 0) {
      throw new Error(`the suite ran no scenario:\n${new TextDecoder().decode(run.stderr)}`);
    }
    return scenarios;
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

const passed = (checks: readonly Check[] | undefined) =>
  checks !== undefined && checks.length > 0 && checks.every((check) => check.status === "SUCCESS");

const failures = (checks: readonly Check[] | undefined) =>
  (checks ?? []).filter((check) => check.status !== "SUCCESS")
    .map((check) => `${check.id}: ${check.status} ${check.errorMessage ?? ""}`);

Deno.test("the MCP conformance suite passes through serve --http as it passes directly", async () => {
  const upstream = new Deno.Command(Deno.execPath(), {
    args: [...UPSTREAM_ARGS, "--http", "0"],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const upstreamOut = new StreamLines(upstream.stdout);
  try {
    await using gateway = await spawnHttpServe(["--no-auth"]);
    const [, port] = await upstreamOut.waitFor(/^listening on (\d+)$/) as [string, string];
    const [direct, through] = await Promise.all([
      runSuite(new URL(`http://127.0.0.1:${port}/mcp`)),
      runSuite(gateway.url as URL),
    ]);
    for (const scenario of REQUIRED) {
      assert.ok(
        passed(direct.get(scenario)),
        `${scenario} directly: ${failures(direct.get(scenario))}`,
      );
      assert.ok(
        passed(through.get(scenario)),
        `${scenario} through the gateway: ${failures(through.get(scenario))}`,
      );
    }
    for (const [scenario, checks] of direct) {
      if (!passed(checks)) continue;
      assert.ok(
        passed(through.get(scenario)),
        `${scenario} passes directly but not through the gateway: ${
          failures(through.get(scenario))
        }`,
      );
    }
  } finally {
    upstream.kill("SIGTERM");
    await upstream.status;
    await upstreamOut.ended;
  }
});
