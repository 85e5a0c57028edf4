/**
 * A small upstream MCP server over stdio, for demos and tests of spillway's
 * `providers.mcp.*` sources. Configure it as
 *
 * ```toml
 * [providers.mcp.demo]
 * type = "stdio"
 * command = "deno"
 * arguments = ["run", "--quiet", "--allow-env", "examples/upstream_server.ts"]
 * ```
 *
 * and its tools become available to the assistant as `big_report`, `echo`,
 * `wait`, `crash` and `image_and_text`:
 *
 * - `big_report` returns a multi-megabyte fake test log (default 3 MB): the
 *   kind of result `size_threshold` exists for.
 * - `echo` returns its `text`.
 * - `wait` takes `seconds` to answer, and stops early when the call is
 *   cancelled: try Ctrl-C or a short timeout on it.
 * - `crash` exits the server in the middle of the call: spillway records the
 *   call as lost instead of hanging.
 * - `image_and_text` returns a text block, a 1×1 PNG and `structuredContent`.
 *
 * It needs `--allow-env` only because the SDK reads a few environment
 * variables when it loads: `deno run --allow-env examples/upstream_server.ts`.
 *
 * @module
 */

import { z } from "zod";
import { McpServer, StdioServerTransport } from "../src/service/sdk.ts";
import { fakeTestLog } from "./fake_test_log.ts";

/** A 1×1 opaque red PNG. */
const RED_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/** The last report, kept so repeated calls (benchmarks) measure the transfer, not the rendering. */
let lastReport: { megabytes: number; text: string } | undefined;

function report(megabytes: number): string {
  if (lastReport?.megabytes !== megabytes) {
    lastReport = {
      megabytes,
      text: fakeTestLog(Math.max(200, Math.round(megabytes * 1024 * 1024))),
    };
  }
  return lastReport.text;
}

const server = new McpServer({ name: "spillway-example-upstream", version: "1.0.0" });

server.registerTool("big_report", {
  description: "Returns a fake test-run log of the given size in megabytes (default 3).",
  inputSchema: { megabytes: z.number().positive().max(1024).optional() },
}, ({ megabytes = 3 }) => ({ content: [{ type: "text", text: report(megabytes) }] }));

server.registerTool("echo", {
  description: "Returns its text argument unchanged.",
  inputSchema: { text: z.string() },
}, ({ text }) => ({ content: [{ type: "text", text }] }));

server.registerTool("wait", {
  description: "Answers after the given number of seconds, unless the call is cancelled first.",
  inputSchema: { seconds: z.number().nonnegative().max(3600) },
}, async ({ seconds }, ctx) => {
  const signal = ctx.mcpReq.signal;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
  const text = signal.aborted ? "cancelled" : `waited ${seconds}s`;
  return { content: [{ type: "text", text }] };
});

server.registerTool("crash", {
  description: "Exits the server in the middle of the call (exit code 3).",
}, () => {
  Deno.exit(3);
});

server.registerTool("image_and_text", {
  description: "Returns a caption, a 1×1 PNG image and structured metadata.",
}, () => ({
  content: [
    { type: "text", text: "A single red pixel." },
    { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
  ],
  structuredContent: { width: 1, height: 1, color: "#ff0000" },
}));

await server.connect(new StdioServerTransport());
