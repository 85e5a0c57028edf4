/**
 * An upstream server's stderr is bounded in spillway's own: a 100 MiB
 * flood (after a warm-up flood) through a real `serve --http` raises
 * neither spillway's stderr past 1 MB nor its RSS past 64 MB, and a line
 * says how much was dropped. The server is
 * `tests/fixtures/gateway/stderr_upstream.ts`.
 */

import assert from "node:assert/strict";
import { spawnHttpServe, textOf } from "./gateway_fixtures.ts";
import { procStatusBytes, resetPeakRss } from "./_raw_http.ts";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";

const NOISY = new URL("./fixtures/gateway/stderr_upstream.ts", import.meta.url).pathname;
const TOKEN = "stderr-flood-token-0123456789";
const MB = 1024 * 1024;

const CONFIG = `[providers.mcp.noisy]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(["run", "--quiet", "--allow-env", NOISY])}
`;

Deno.test({
  name:
    "serve --http: a 100 MiB upstream stderr flood raises neither spillway's stderr past 1 MB nor its RSS past 64 MB",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using serve = await spawnHttpServe([], {
      config: CONFIG,
      env: { SPILLWAY_SERVE_TOKEN: TOKEN },
    });
    const client = new Client({ name: "flood-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(serve.url as URL, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const stderrBytes = () => serve.stderr.text.length;
    try {
      const flood = async (megabytes: number) =>
        textOf(await client.callTool({ name: "flood", arguments: { megabytes } }));
      assert.equal(await flood(10), "flooded 10 MiB", "the warm-up flood");
      const pid = serve.child.pid;
      const idle = await procStatusBytes(pid, "VmRSS");
      const before = stderrBytes();
      const reset = await resetPeakRss(pid);
      assert.equal(await flood(100), "flooded 100 MiB");
      const peak = await procStatusBytes(pid, reset ? "VmHWM" : "VmRSS");
      const shown = stderrBytes();
      console.log(
        `100 MiB flood: spillway's stderr ${before} → ${shown} bytes; RSS idle ${
          (idle / MB).toFixed(1)
        } MB, ${reset ? "peak" : "after"} ${(peak / MB).toFixed(1)} MB`,
      );
      assert.ok(shown < 1_000_000, `spillway's stderr reached ${shown} bytes`);
      assert.ok(peak - idle < 64 * MB, `RSS peak ${peak} vs idle ${idle}`);
      assert.match(
        serve.stderr.text,
        /^\[mcp\.noisy: more than 64\.0 KB of stderr in 60 s; the rest of this window is dropped\]$/m,
      );
    } finally {
      await client.close();
    }
    // Stopped, the server's stderr ends: the drops are counted in one line.
    serve.child.kill("SIGTERM");
    const lines = await serve.stderr.ended;
    const dropped = lines.map((line) =>
      /^\[mcp\.noisy: dropped ([\d.]+) MB of stderr\]$/.exec(line)
    )
      .filter((match) => match !== null)
      .reduce((sum, match) => sum + Number(match[1]), 0);
    assert.ok(
      dropped > 100,
      `dropped ${dropped} MB in all: ${lines.filter((l) => l.includes("dropped")).join(" | ")}`,
    );
  },
});
