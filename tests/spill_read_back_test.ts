/**
 * `spill = true` end to end through `createRuntime`: a tool returns a large
 * output of every kind of character (lone surrogates included), its cut
 * names the stored output, and the assistant reads the whole of it back
 * through `read_tool_output` in pages of an awkward size, then searches it.
 * The pages joined must be the original's UTF-8 bytes exactly, and the
 * stream must hold the cut and the pages, never the whole output at once.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { parseConfig } from "../src/config/parse_config.ts";
import type { ProviderRequest, ToolMessage } from "../src/provider/provider.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import type { ToolCall } from "../src/review/tool_call.ts";
import { CollectingNoticeSink } from "../src/testing/collecting_notice_sink.ts";

const PAGE = 40_001; // not a multiple of any character's size
const REFERENCE =
  /\n\.\.\. \[full output: read_tool_output ref="(sha256:[0-9a-f]{64})" \((\d+) bytes\)\]/;

/** About 390 KB: ASCII lines, accents, CJK, emoji and lone surrogates, with a few FAIL lines. */
function bigOutput(): string {
  const lines: string[] = [];
  for (let i = 0; i < 12_000; i++) {
    const odd = i % 997 === 0 ? `FAIL case ${i}` : `ok ${i} — naïve 漢字 🦕`;
    lines.push(i % 101 === 0 ? `${odd} \uD800 lone \uDC00` : odd);
  }
  return lines.join("\n") + "\nsummary: done";
}

const toolMessages = (request: ProviderRequest) =>
  request.messages.filter((m): m is ToolMessage => m.role === "tool");

Deno.test("the assistant reads a spilled output back in pages, byte for byte, and searches it", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_spill_" });
  const output = bigOutput();
  const original = new Uint8Array(Buffer.from(output, "utf8"));
  let ref = "";
  let size = 0;
  let pageCalls: ToolCall[] = [];
  const runtime = await createRuntime({
    workspace,
    config: parseConfig(`
[conversation.tools.dump]
size_threshold = "8KB"
truncation = "tail"
spill = true
`),
    tools: [{
      name: "dump",
      description: "Dumps a lot.",
      inputSchema: { type: "object" },
      run: () => Promise.resolve(output),
    }],
    noticeSink: new CollectingNoticeSink(),
    provider: (request) => {
      const tools = toolMessages(request);
      switch (request.cycle) {
        case 0:
          return Promise.resolve({
            text: "Dumping.",
            toolCalls: [{ id: "dump_1", name: "dump", arguments: {} }],
          });
        case 1: {
          const cut = tools.at(-1)!.content;
          const found = REFERENCE.exec(cut);
          assert.ok(found, `no reference in the cut:\n${cut.slice(0, 300)}`);
          [, ref = ""] = found;
          size = Number(found[2]);
          pageCalls = [];
          for (let offset = 0; offset < size; offset += PAGE) {
            pageCalls.push({
              id: `page_${offset}`,
              name: "read_tool_output",
              arguments: { ref, offset, length: PAGE },
            });
          }
          return Promise.resolve({ text: "Reading it all.", toolCalls: pageCalls });
        }
        case 2:
          return Promise.resolve({
            text: "Looking for failures.",
            toolCalls: [{
              id: "grep_1",
              name: "read_tool_output",
              arguments: { ref, pattern: "^FAIL" },
            }],
          });
        default:
          return Promise.resolve({ text: "Done.", toolCalls: [] });
      }
    },
  });
  try {
    assert.ok(runtime.tools.some((tool) => tool.name === "read_tool_output"));
    const turn = await runtime.query("dump and read");
    assert.equal(turn.status, "finished");
    assert.equal(size, original.length);
    assert.equal(ref, `sha256:${createHash("sha256").update(original).digest("hex")}`);

    const events = (await Deno.readTextFile(turn.location)).trimEnd().split("\n")
      .map((line) => JSON.parse(line) as { type: string; id?: string; content?: string });
    const response = (id: string) =>
      events.find((e) => e.type === "tool_call_response" && e.id === id)!.content!;
    // The cut: the tail strategy, marker then reference, within the threshold.
    const cut = response("dump_1");
    assert.ok(cut.startsWith("... [truncated, "), cut.slice(0, 80));
    assert.ok(cut.endsWith("summary: done"));
    assert.ok(Buffer.byteLength(cut) <= 8 * 1024);
    // The pages, in order, are the original bytes.
    const pages = pageCalls.map((call) => Buffer.from(response(call.id), "utf8"));
    assert.ok(pages.length >= 8, `${pages.length} pages`);
    assert.deepEqual(new Uint8Array(Buffer.concat(pages)), original);
    assert.ok(pages.some((page) => page.length < PAGE - 1), "no page edge moved back");
    // The search names each FAIL line's offset, which pages from that line.
    const grep = response("grep_1");
    const lines = grep.split("\n");
    assert.equal(lines[0], `13 lines match /^FAIL/ in ${ref} (${size} bytes):`);
    for (const line of lines.slice(1)) {
      const [offset, text] = [
        Number(line.slice(0, line.indexOf(":"))),
        line.slice(line.indexOf(": ") + 2),
      ];
      assert.equal(Buffer.from(original.subarray(offset, offset + 9)).toString(), text.slice(0, 9));
    }
    // The stream holds the cut and the pages, never the whole output in one response.
    assert.ok(events.every((e) => (e.content?.length ?? 0) < output.length / 2));
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(join(workspace, "blobs")))).map((e) => e.name),
      [ref.slice("sha256:".length)],
    );
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});
