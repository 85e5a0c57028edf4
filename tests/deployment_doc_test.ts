/**
 * docs/deployment.md shows the HAProxy configuration the gateway tests run
 * (tests/_gateways.ts), line for line but its addresses, and HAProxy
 * accepts it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { haproxyConfig, haproxyMissing } from "./_gateways.ts";

const DOC = join(import.meta.dirname!, "..", "docs", "deployment.md");

/** The first fenced block after the line that mentions `haproxy` (Debian's). */
async function documented(): Promise<string> {
  const text = await Deno.readTextFile(DOC);
  const start = text.indexOf("\n```\nglobal\n");
  assert.ok(start >= 0, "docs/deployment.md shows no HAProxy configuration");
  const body = text.slice(start + 5);
  return body.slice(0, body.indexOf("```\n"));
}

const gateways = ["10.0.0.11", "10.0.0.12", "10.0.0.13"].map((host) =>
  new URL(`http://${host}:8931/mcp`)
);

Deno.test("docs/deployment.md shows the HAProxy configuration the gateway tests run", async () => {
  assert.equal(await documented(), haproxyConfig("0.0.0.0:8931", gateways));
});

const missing = await haproxyMissing();
Deno.test({
  name: `HAProxy accepts the documented configuration${
    missing === undefined ? "" : ` (ignored: ${missing})`
  }`,
  ignore: missing !== undefined,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(join(dir, "haproxy.cfg"), await documented());
      const check = await new Deno.Command("haproxy", {
        args: ["-c", "-q", "-f", join(dir, "haproxy.cfg")],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(check.success, new TextDecoder().decode(check.stderr));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
