/**
 * docs/deployment.md shows the HAProxy configurations the gateway tests run
 * (tests/_gateways.ts: sessions pinned, and the fleet without affinity for
 * 2026-07-28 clients), line for line but their addresses, and HAProxy
 * accepts them.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { haproxyConfig, haproxyMissing } from "./_gateways.ts";

const DOC = join(import.meta.dirname!, "..", "docs", "deployment.md");

/**
 * The `n`-th HAProxy configuration (a fenced block starting `global`) the
 * doc shows: the first pins 2025 sessions, the second is the fleet without
 * affinity for 2026-07-28 clients.
 */
async function documented(n = 0): Promise<string> {
  const text = await Deno.readTextFile(DOC);
  let start = -1;
  for (let i = 0; i <= n; i++) {
    start = text.indexOf("\n```\nglobal\n", start + 1);
    assert.ok(start >= 0, `docs/deployment.md shows no HAProxy configuration number ${n + 1}`);
  }
  const body = text.slice(start + 5);
  return body.slice(0, body.indexOf("```\n"));
}

const gateways = ["10.0.0.11", "10.0.0.12", "10.0.0.13"].map((host) =>
  new URL(`http://${host}:8931/mcp`)
);

Deno.test("docs/deployment.md shows the HAProxy configuration the gateway tests run", async () => {
  assert.equal(await documented(), haproxyConfig("0.0.0.0:8931", gateways));
});

Deno.test("docs/deployment.md shows the HAProxy configuration without affinity the 2026-07-28 fleet test runs", async () => {
  assert.equal(await documented(1), haproxyConfig("0.0.0.0:8931", gateways, { sticky: false }));
});

const missing = await haproxyMissing();
Deno.test({
  name: `HAProxy accepts the documented configurations${
    missing === undefined ? "" : ` (ignored: ${missing})`
  }`,
  ignore: missing !== undefined,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      for (const n of [0, 1]) {
        await Deno.writeTextFile(join(dir, "haproxy.cfg"), await documented(n));
        const check = await new Deno.Command("haproxy", {
          args: ["-c", "-q", "-f", join(dir, "haproxy.cfg")],
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.ok(check.success, new TextDecoder().decode(check.stderr));
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
