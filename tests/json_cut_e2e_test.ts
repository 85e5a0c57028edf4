/**
 * End to end through the command line: `spillway query` with a scripted
 * model and a local tool that prints a 50 MB JSON array a chunk at a time,
 * configured with `truncation = "json"`. The output is too large to hold:
 * the collector keeps a window and scans the rest as it streams, and the
 * cut made from the window must be the json cut of the whole text. The
 * recorded response parses up to its marker, keeps the leading items and
 * counts the rest; the runtime's own delivery check (what its MCP client
 * received against what was recorded) stays silent; the terminal keeps the
 * whole output. Then the same tool printing JSON lines, which are not one
 * JSON value: cut as head, and the notice says so.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { capJson } from "../src/size/cap_json.ts";
import { ByteSize } from "../src/size/byte_size.ts";
import { capText } from "../src/size/cap_text.ts";
import { query, REPO, responsesOf, workspaceWith } from "./_cli.ts";

const MB = 1024 * 1024;
const THRESHOLD = 256 * 1024;

/** Prints a JSON array of 50 MB (and a few bytes), or (with `lines`) the same items as JSON lines. */
const PRINTER = `
const lines = Deno.args[0] === "lines";
const out = Deno.stdout;
const enc = new TextEncoder();
let batch = lines ? "" : "[";
let size = 0;
for (let i = 0; size < ${50 * MB}; i++) {
  const item = JSON.stringify({ number: i, title: "Issue " + i + " — naïve 漢字 🦕", labels: ["bug", "p" + (i % 4)], open: i % 3 !== 0 });
  const piece = lines ? item + "\\n" : (i === 0 ? "" : ",") + item;
  batch += piece;
  size += enc.encode(piece).length;
  if (batch.length > 60000) { await out.write(enc.encode(batch)); batch = ""; }
}
await out.write(enc.encode(batch + (lines ? "" : "]")));
`;

/** The text PRINTER prints, built here the same way. */
function printed(lines: boolean): string {
  const pieces: string[] = lines ? [] : ["["];
  let size = 0;
  for (let i = 0; size < 50 * MB; i++) {
    const item = JSON.stringify({
      number: i,
      title: `Issue ${i} — naïve 漢字 🦕`,
      labels: ["bug", `p${i % 4}`],
      open: i % 3 !== 0,
    });
    const piece = lines ? item + "\n" : (i === 0 ? "" : ",") + item;
    pieces.push(piece);
    size += Buffer.byteLength(piece, "utf8");
  }
  if (!lines) pieces.push("]");
  return pieces.join("");
}

async function run(mode: "array" | "lines") {
  const config = `
[conversation.tools.issues]
source = "local"
command = [${JSON.stringify(Deno.execPath())}, "eval", ${JSON.stringify(PRINTER)}, "${mode}"]
truncation = "json"
style.inline_results = 2
`;
  const script = `
[[cycles]]
text = "Listing the issues."
tool_calls = [{ id = "call_1", name = "issues", arguments = {} }]

[[cycles]]
text = "Done."
`;
  const workspace = await workspaceWith(config, { "script.toml": script });
  const cli = await query(workspace, [
    "--config",
    join(workspace, "config.toml"),
    "--script",
    join(workspace, "script.toml"),
    "List the issues",
  ], { cwd: REPO });
  return { workspace, cli };
}

Deno.test("query: a local tool's 50 MB JSON array under truncation json is recorded as JSON, as delivered", async () => {
  const { workspace, cli } = await run("array");
  try {
    assert.equal(cli.code, 0, cli.stderr);
    const text = printed(false);
    const bytes = Buffer.byteLength(text, "utf8");
    // The notice alone: no delivery mismatch, no fallback.
    assert.equal(
      cli.stderr,
      `issues: sent 256.0 KB of ${
        ByteSize.fromBytes(bytes).human()
      } to the assistant (size_threshold)\n`,
    );
    const id = /Conversation (\S+) \(2 model requests, 1 cut response\)/.exec(cli.stdout)?.[1];
    assert.ok(id !== undefined, cli.stdout.slice(-300));
    const content = (await responsesOf(workspace, id)).get("call_1")!.content;
    // The cut of the whole text, made from the window the collector kept.
    assert.equal(content, capJson(text, THRESHOLD).text);
    const marker = content.lastIndexOf("\n");
    assert.equal(
      content.slice(marker + 1),
      `... [truncated, ${(bytes / MB).toFixed(1)} MB → 256.0 KB]`,
    );
    const items = JSON.parse(content.slice(0, marker)) as unknown[];
    const all = JSON.parse(text) as unknown[];
    // Leading items whole; only the last one kept may be cut (its leading members kept).
    const kept = items.slice(0, -1) as Record<string, unknown>[];
    assert.deepEqual(kept.slice(0, -1), all.slice(0, kept.length - 1));
    const { "…": _note, ...last } = kept.at(-1)!;
    const original = all[kept.length - 1] as Record<string, unknown>;
    for (const [key, value] of Object.entries(last)) assert.deepEqual(value, original[key]);
    assert.equal(
      items.at(-1),
      `… ${(all.length - kept.length).toLocaleString("en-US")} more items`,
    );
    const size = Buffer.byteLength(content, "utf8");
    assert.ok(size <= THRESHOLD && size > THRESHOLD - 2048, `${size} bytes`);
    // The terminal kept the whole output for people.
    const saved = /full result in (\S*call_1\.txt)/.exec(cli.stdout)?.[1];
    assert.ok(saved !== undefined, cli.stdout.slice(0, 500));
    assert.equal((await Deno.stat(saved)).size, bytes);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("query: JSON lines under truncation json are cut as head, and the notice says so", async () => {
  const { workspace, cli } = await run("lines");
  try {
    assert.equal(cli.code, 0, cli.stderr);
    const text = printed(true);
    const bytes = Buffer.byteLength(text, "utf8");
    assert.equal(
      cli.stderr,
      `issues: sent 256.0 KB of ${ByteSize.fromBytes(bytes).human()} to the assistant ` +
        "(size_threshold); not one JSON value: cut as head\n",
    );
    const id = /Conversation (\S+) /.exec(cli.stdout)?.[1];
    const content = (await responsesOf(workspace, id!)).get("call_1")!.content;
    assert.equal(content, capText(text, THRESHOLD).text);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
