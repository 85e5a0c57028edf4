import assert from "node:assert/strict";
import { parseConfig } from "../config/parse_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import { utf8Length } from "../size/cap_text.ts";
import { MemoryStreamStore } from "../stream/memory_stream_store.ts";
import { ToolOutputCap } from "./tool_output_cap.ts";

const rows = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` })) };

Deno.test('ToolOutputCap cuts a JSON output with truncation = "json" to a JSON value and the marker', async () => {
  const store = new MemoryStreamStore();
  const cap = await ToolOutputCap.open({
    config: parseConfig('[conversation.tools.rows]\nsize_threshold = "1KB"\ntruncation = "json"'),
    store,
    spill: false,
    notices: { notice() {} },
  });
  try {
    const [out] = await cap.capStep([{ name: "rows", callId: "c1", output: rows }]);
    const [value, marker] = out!.text.split("\n");
    assert.equal(marker, "... [truncated, 5.2 KB → 1.0 KB]");
    assert.equal((JSON.parse(value!) as typeof rows).rows[0]?.name, "row 0");
    assert.ok(utf8Length(out!.text) <= 1024);
    assert.equal(out!.truncated, true);
  } finally {
    await cap.close();
  }
});

Deno.test("ToolOutputCap prints no notice and returns nothing when the record fails", async () => {
  const notices: string[] = [];
  const cap = await ToolOutputCap.open({
    store: new MemoryStreamStore({ failFlush: true }),
    spill: false,
    notices: { notice: (fact) => void notices.push(fact.tool) },
  });
  try {
    await assert.rejects(
      cap.capStep([{ name: "big", callId: "c1", output: "x".repeat(300_000) }]),
      (error) => error instanceof SpillwayError && error.code === "store_failed",
    );
    assert.deepEqual(notices, []);
  } finally {
    await cap.close();
  }
});

Deno.test("ToolOutputCap records each step's requests and responses, steps in the order given", async () => {
  const store = new MemoryStreamStore();
  const cap = await ToolOutputCap.open({
    config: parseConfig('[conversation.tools."*"]\nsize_threshold = "unlimited"'),
    store,
    spill: false,
    notices: { notice() {} },
  });
  try {
    const big = "y".repeat(1_500_000);
    const [first, second] = await Promise.all([
      cap.capStep([{ name: "a", callId: "c1", output: big }, {
        name: "b",
        callId: "c2",
        output: big,
      }]),
      cap.capStep([{ name: "c", callId: "c3", output: "ok", arguments: { n: 1 } }]),
    ]);
    assert.ok(
      utf8Length(first![0]!.text) + utf8Length(first![1]!.text) <= MAX_TOOL_RESPONSE_BATCH_BYTES,
    );
    assert.equal(second![0]!.text, "ok");
    const stream = await store.open(cap.conversationId);
    const { events } = await stream.load();
    assert.deepEqual(
      events.map((e) => `${e.type}:${"id" in e ? e.id : ""}`),
      [
        "tool_call_request:c1",
        "tool_call_response:c1",
        "tool_call_request:c2",
        "tool_call_response:c2",
        "tool_call_request:c3",
        "tool_call_response:c3",
      ],
    );
    await stream.close();
  } finally {
    await cap.close();
  }
});
