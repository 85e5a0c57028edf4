import assert from "node:assert/strict";
import { runSourceCall } from "./source_call.ts";
import type { ResolvedRoute } from "./tool_routes.ts";
import type { ToolResult } from "./tool_source.ts";

function route(result: unknown): ResolvedRoute {
  return {
    source: {
      name: "fake",
      list: () => Promise.resolve([]),
      call: () => Promise.resolve(result as ToolResult),
      close: () => Promise.resolve(),
    },
    sourceTool: "probe",
    definition: { name: "probe", description: "probe", inputSchema: {} },
  };
}

const live = new AbortController().signal;

Deno.test("runSourceCall keeps a text-only result as it is, with its error flag", async () => {
  for (
    const raw of [{ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }, {
      content: [{ type: "text", text: "no" }],
      isError: true,
    }]
  ) {
    const end = await runSourceCall(route(raw), "c1", {}, live);
    assert.equal(end.result, raw);
    assert.equal(end.outcome.kind, "executed");
  }
});

Deno.test("runSourceCall validates any other result with the MCP schema", async () => {
  const rich = {
    content: [{ type: "text", text: "a" }, { type: "image", data: "AA==", mimeType: "image/png" }],
    structuredContent: { n: 1 },
  };
  const end = await runSourceCall(route(rich), "c1", {}, live);
  assert.equal(end.outcome.kind, "executed");
  assert.deepEqual(end.result, rich);
  for (
    const bad of [{ content: [{ type: "text", text: 3 }] }, { content: "x" }, { isError: "yes" }]
  ) {
    const failed = await runSourceCall(route(bad), "c1", {}, live);
    assert.equal(failed.outcome.kind, "failed");
    assert.match(
      failed.outcome.kind === "failed" ? failed.outcome.reason : "",
      /^fake returned a malformed result for `probe`/,
    );
  }
});
