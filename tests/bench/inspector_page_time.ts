/**
 * How long the inspector page takes to show a big `spillway serve`
 * recording: 50 client sessions of a gateway (in-process), 20 calls each,
 * 1,000 calls in all (every fifth one 20 KB, cut by its 4KB
 * `size_threshold`), recorded as `serve --inspect FILE` records; then the
 * page, in headless Chromium, from navigation until its timeline shows all
 * 1,000 calls, and until its diagrams are drawn and lit too, five times
 * (the medians are printed), and the server's answer of the last step's
 * view alone.
 *
 * `deno run -A tests/bench/inspector_page_time.ts`
 *
 * @module
 */

import { join } from "node:path";
import { launchChromium } from "../_chromium.ts";
import { parseConfig } from "../../src/config/parse_config.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { Inspection } from "../../src/inspector/inspection.ts";
import { InspectionLog } from "../../src/inspector/inspection_log.ts";
import { serveInspector } from "../../src/inspector/inspector_server.ts";
import { Client, InMemoryTransport } from "../../src/service/sdk.ts";

const CLIENTS = 50;
const CALLS_EACH = 20;
const RUNS = 5;

const dir = await Deno.makeTempDir({ prefix: "spillway_inspector_page_time_" });
const file = join(dir, "serve.jsonl");
const inspection = new Inspection([await InspectionLog.create(file)]);
let count = 0;
const gateway = await Gateway.start({
  config: parseConfig('[conversation.tools.text]\nsize_threshold = "4KB"\n'),
  workspace: join(dir, "ws"),
  cwd: dir,
  tools: [{
    name: "text",
    description: "some text",
    inputSchema: { type: "object", properties: {} },
    run: () =>
      Promise.resolve((++count % 5 === 0 ? "x" : "y").repeat(count % 5 === 0 ? 20_000 : 800)),
  }],
  noticeSink: { notice: () => {} },
  upstreamStderr: "null",
  inspect: (session) => inspection.observer(session),
});
const clients: Client[] = [];
const recordStart = performance.now();
await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
  const [server, transport] = InMemoryTransport.createLinkedPair();
  await gateway.connect(server, { id: `client-${String(c).padStart(2, "0")}` });
  const client = new Client({ name: `client-${c}`, version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  for (let i = 0; i < CALLS_EACH; i++) await client.callTool({ name: "text", arguments: {} });
}));
const recordMs = performance.now() - recordStart;
await Promise.all(clients.map((client) => client.close()));
await gateway.close();
await inspection.close();
const lines = (await Deno.readTextFile(file)).split("\n").length - 1;
const bytes = (await Deno.stat(file)).size;

const inspector = serveInspector({ file, port: 0 });
const browser = await launchChromium();
const shown: number[] = [];
const drawn: number[] = [];
try {
  const viewStart = performance.now();
  await (await fetch(`${inspector.url}view.json`)).text();
  const viewMs = performance.now() - viewStart;
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage({ viewport: { width: 1500, height: 1200 } });
    const started = performance.now();
    await page.goto(inspector.url);
    await page.waitForFunction(
      `document.querySelectorAll("#timeline .line").length === ${CLIENTS * CALLS_EACH}`,
      undefined,
      { timeout: 120_000 },
    );
    shown.push(performance.now() - started);
    await page.waitForSelector("body[data-ready=true]", { timeout: 120_000 });
    drawn.push(performance.now() - started);
    if (run === RUNS - 1) await page.screenshot({ path: join(dir, "big.png") });
    await page.close();
  }
  shown.sort((a, b) => a - b);
  drawn.sort((a, b) => a - b);
  console.log([
    `recording: ${CLIENTS} clients × ${CALLS_EACH} calls = ${CLIENTS * CALLS_EACH} calls, ` +
    `${lines.toLocaleString("en")} records, ${(bytes / 1024 / 1024).toFixed(1)} MiB, ` +
    `recorded in ${(recordMs / 1000).toFixed(1)} s`,
    `view.json of the last step (first ask, file read and folded): ${viewMs.toFixed(0)} ms`,
    `page shown, navigation to all ${CLIENTS * CALLS_EACH} calls in the timeline: median ${
      shown[Math.floor(RUNS / 2)]?.toFixed(0)
    } ms (of ${RUNS}: ${shown.map((ms) => ms.toFixed(0)).join(", ")} ms)`,
    `the diagrams drawn and lit too (Mermaid): median ${
      drawn[Math.floor(RUNS / 2)]?.toFixed(0)
    } ms`,
    `load ${(Deno.loadavg()[0] ?? 0).toFixed(1)}; a screenshot: ${join(dir, "big.png")}`,
  ].join("\n"));
} finally {
  await browser.close();
  await inspector.shutdown();
}
