/**
 * The inspector page following a running gateway, in headless Chromium: a
 * `spillway serve --inspect FILE` (an upstream MCP server and a local tool
 * behind it) and the inspector on that FILE; a client calls, and each new
 * call appears in the timeline without a reload (the page is told by
 * server-sent events), with the client's session machine and the upstream
 * connection's machine lit.
 *
 * `SPILLWAY_SCREENSHOT=docs/inspector-gateway.png deno test -A tests/inspector_live_test.ts`
 * also saves the picture the docs show.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { BROWSER_IGNORED_NOTE, IGNORE_BROWSER_TESTS, launchChromium } from "./_chromium.ts";
import { spawnHttpServe, upstreamConfig } from "./gateway_fixtures.ts";
import { serveInspector } from "../src/inspector/inspector_server.ts";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";

const TOKEN = "serve-token-inspector-live-0123456789";

const CONFIG = upstreamConfig(`
[conversation.tools.bulky]
source = "local"
command = ["sh", "-c", "head -c 60000 /dev/zero | tr '\\\\0' b"]
size_threshold = "4KB"
`);

/** The Mermaid ids of the states drawn current in a diagram. */
function current(page: Page, diagram: string): Promise<string[]> {
  return page.$$eval(
    `${diagram} .current`,
    (nodes) =>
      nodes.map((node) =>
        node.getAttribute("data-id") ??
          node.id.replace(/^diagram-\w+-state-/, "").replace(/-\d+$/, "")
      ),
  );
}

Deno.test({
  name:
    `the inspector page follows a running serve: new calls appear, session and upstream lit${BROWSER_IGNORED_NOTE}`,
  ignore: IGNORE_BROWSER_TESTS,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "spillway-inspector-live-" });
    const file = join(dir, "serve.jsonl");
    const browser = await launchChromium();
    const inspector = serveInspector({ file, port: 0 });
    const client = new Client({ name: "live-client", version: "1.0.0" });
    try {
      await using serve = await spawnHttpServe(["--inspect", file], {
        config: CONFIG,
        env: { SPILLWAY_SERVE_TOKEN: TOKEN },
      });
      const page = await browser.newPage({ viewport: { width: 1500, height: 1400 } });
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(inspector.url);
      await page.waitForSelector("body[data-ready=true]");
      // A mark on the page's window: a reload would lose it.
      await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
      await client.connect(
        new StreamableHTTPClientTransport(serve.url as URL, {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      await client.callTool({ name: "bulky", arguments: {} });
      await page.waitForSelector('#timeline .line[data-call="call_1"]');
      await client.callTool({ name: "test_simple_text", arguments: {} });
      await page.waitForSelector('#timeline .line[data-call="call_2"]');
      assert.equal(await page.evaluate(() => "notReloaded" in globalThis), true, "no reload");
      assert.match(
        (await page.textContent('#timeline .line[data-call="call_1"]')) ?? "",
        /call_1 bulky.*58\.5 KB → 4\.0 KB → 4\.0 KB.*cut by size_threshold/,
      );
      // The session machine of the client: lit in both its regions while it is open.
      await page.waitForSelector("#clients tbody tr");
      const session = await current(page, "#session-diagram");
      assert.ok(session.some((id) => id.startsWith("open_calls_")), session.join());
      assert.ok(session.some((id) => id.startsWith("open_commits_")), session.join());
      // The upstream connection that served test_simple_text: ready, serving, lit when it is picked.
      assert.match(
        (await page.textContent('#timeline .line[data-call="call_2"]')) ?? "",
        /call_2 test_simple_text via mcp\.conf/,
      );
      await page.click('#timeline .line[data-call="call_2"]');
      await page.waitForSelector('#upstreams .chip.picked:text-is("mcp.conf · ready.serving")');
      assert.deepEqual(await current(page, "#connection-diagram"), ["ready_serving"]);
      assert.deepEqual(problems, []);
      const screenshot = Deno.env.get("SPILLWAY_SCREENSHOT");
      if (screenshot !== undefined) {
        await page.click('#timeline .line[data-call="call_1"]');
        await page.screenshot({ path: screenshot });
      }
      await page.close();
    } finally {
      await client.close();
      await inspector.shutdown();
      await browser.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
