/**
 * A json cut of an output too large to hold, through `createRuntime`: the
 * Host tells each source which tools' outputs to scan as JSON while they
 * stream (those whose `truncation` is `json` or `auto`), and the cut made
 * from the window is the json cut of the whole text. `fs_read_file` of a
 * big JSON file and a local tool printing one; a tool under `head` is not
 * scanned (its window carries no scan) and is cut as head.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../src/config/parse_config.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import { BuiltinToolSource } from "../src/service/builtin/builtin_tool_source.ts";
import { LocalToolSource } from "../src/service/local/local_tool_source.ts";
import { spoolSink } from "../src/service/output_sink.ts";
import { capJson } from "../src/size/cap_json.ts";
import { capText } from "../src/size/cap_text.ts";

const KIB = 1024;
const signal = () => new AbortController().signal;
const rows = JSON.stringify(
  { rows: Array.from({ length: 60_000 }, (_, i) => ({ id: i, path: `/srv/data/${i}.json` })) },
  null,
  1,
);

Deno.test("a source scans an output too large to hold as JSON only for a tool the Host names", async () => {
  const work = await Deno.makeTempDir({ prefix: "spillway_json_window_" });
  await Deno.writeTextFile(join(work, "rows.json"), rows);
  const builtin = new BuiltinToolSource({
    cwd: work,
    scansJsonFor: (tool) => tool === "fs_read_file",
  });
  const printer = `await Deno.stdout.write(await Deno.readFile("rows.json"));`;
  const local = new LocalToolSource({
    tools: [
      { name: "json", command: [Deno.execPath(), "eval", printer], cwd: work, scansJson: true },
      { name: "plain", command: [Deno.execPath(), "eval", printer], cwd: work },
    ],
  });
  try {
    const output = spoolSink(join(work, "spool"), 64 * KIB);
    const read = await builtin.call("fs_read_file", { path: "rows.json" }, {
      signal: signal(),
      output,
    });
    assert.equal(read.window?.json?.value, "object");
    assert.equal(read.window?.json?.markAt, String(read.content[0]?.text).length);
    const scanned = await local.call("json", {}, { signal: signal(), output });
    assert.deepEqual(scanned.window?.json, read.window?.json);
    const plain = await local.call("plain", {}, { signal: signal(), output });
    assert.ok(plain.window !== undefined && plain.window.json === undefined);
  } finally {
    await builtin.close();
    await local.close();
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("createRuntime: fs_read_file and a local tool under truncation json record the json cut of the whole text", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_json_window_" });
  await Deno.writeTextFile(join(workspace, "rows.json"), rows);
  const deno = JSON.stringify(Deno.execPath());
  const printer = JSON.stringify(`await Deno.stdout.write(await Deno.readFile("rows.json"));`);
  const config = parseConfig(
    `
[conversation.tools.fs_read_file]
truncation = "json"

[conversation.tools.rows]
source = "local"
command = [${deno}, "eval", ${printer}]
truncation = "auto"
size_threshold = "64KB"

[conversation.tools.rows_head]
source = "local"
command = [${deno}, "eval", ${printer}]
size_threshold = "64KB"
`,
    "json_window.toml",
  );
  const runtime = await createRuntime({
    workspace,
    config,
    cwd: workspace,
    noticeSink: { notice: () => {} },
    provider: ({ cycle }) =>
      Promise.resolve(
        cycle === 0
          ? {
            text: "Reading.",
            toolCalls: [
              { id: "read", name: "fs_read_file", arguments: { path: "rows.json" } },
              { id: "rows", name: "rows", arguments: {} },
              { id: "head", name: "rows_head", arguments: {} },
            ],
          }
          : { text: "Done.", toolCalls: [] },
      ),
  });
  try {
    const turn = await runtime.query("read the rows");
    const recorded = new Map<string, string>();
    for (const line of (await Deno.readTextFile(turn.location)).trimEnd().split("\n")) {
      const event = JSON.parse(line) as { type: string; id?: string; content?: string };
      if (event.type === "tool_call_response") recorded.set(event.id!, event.content!);
    }
    assert.equal(recorded.get("read"), capJson(rows, 256 * KIB).text);
    assert.equal(recorded.get("rows"), capJson(rows, 64 * KIB, { strategy: "auto" }).text);
    assert.equal(recorded.get("head"), capText(rows, 64 * KIB).text);
    const kept = recorded.get("rows")!;
    assert.match(
      JSON.parse(kept.slice(0, kept.lastIndexOf("\n"))).rows.at(-1),
      /^… [\d,]+ more items$/,
    );
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});
