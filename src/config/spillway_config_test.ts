import assert from "node:assert/strict";
import { loadConfig } from "./load_config.ts";
import { parseConfig } from "./parse_config.ts";

Deno.test("SpillwayConfig.toolNames() lists configured tools, not '*', in first-configured order", async () => {
  const config = await loadConfig({
    env: {},
    cfg: [
      "conversation.tools.'*'.run=ask",
      "conversation.tools.zeta.run=ask",
      "conversation.tools.alpha.run=ask",
      "conversation.tools.zeta.result=ask",
    ],
  });
  assert.deepEqual(config.toolNames(), ["zeta", "alpha"]);
});

Deno.test("SpillwayConfig.tool('*') reads the defaults table itself", () => {
  const config = parseConfig(`[conversation.tools.'*']\nresult = "skip"\n`);
  assert.equal(config.tool("*").result(), "skip");
  assert.equal(config.tool("*").run(), "unattended");
});

Deno.test("SpillwayConfig.tool() returns independent views for different names", () => {
  const config = parseConfig(`[conversation.tools.a]\nrun = "skip"\n`);
  assert.equal(config.tool("a").run(), "skip");
  assert.equal(config.tool("b").run(), "unattended");
  assert.equal(config.tool("a").name, "a");
});
