/**
 * Structured results cut by `spillway serve --stdio` in front of a real
 * server whose every tool has an output schema:
 * `@modelcontextprotocol/server-filesystem` from npm. A 4 MB file read, a
 * directory tree and a file search over a big tree are cut to the default
 * threshold; an SDK client (which checks `structuredContent` against the
 * tool's schema) receives a success whose text and structured content are
 * both cut, the structured value valid against the schema as listed, and
 * the stream records what was delivered. The MCP Inspector CLI in front of
 * spillway reading the 4 MB file exits 0 (before structured cuts, it
 * reported `returned isError:true` and exited 5).
 *
 * The Inspector comes from npm's cache (`.ci/run` fills it); on a machine
 * without it (or without npx) its test is ignored, its name saying why,
 * unless `SPILLWAY_REQUIRE_INSPECTOR=1` (CI), under which it fails.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { Ajv } from "ajv";
import type { CallToolResult } from "../src/service/sdk.ts";
import { cacheFilesystem, filesystemProvider } from "./_filesystem.ts";
import { join } from "./_paths.ts";
import { serveStdio } from "./_serve_stdio.ts";
import { CLI } from "./_cli.ts";

const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
const REQUIRED = Deno.env.get("SPILLWAY_REQUIRE_INSPECTOR") === "1";
const THRESHOLD = 262_144;
const MARKER = /\n\.\.\. \[truncated, [0-9.]+ [KMG]?B → 256\.0 KB\]$/;

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");

/** A file of 4 MiB (UTF-8) of lines mixing 1- to 4-byte characters. */
function fourMegabytes(): string {
  const lines: string[] = [];
  for (let i = 0, bytes = 0; bytes < 4_194_304; i++) {
    const line = `line ${i}: café 中文 🙂 done\n`;
    lines.push(line);
    bytes += bytesOf(line);
  }
  return lines.join("");
}

/** `dir/data`: the 4 MB file and a tree of 6,400 files in 160 folders. */
async function writeData(dir: string): Promise<{ data: string; big: string; file: string }> {
  const data = join(dir, "data");
  const big = join(data, "big.txt");
  await Deno.mkdir(data, { recursive: true });
  const file = fourMegabytes();
  await Deno.writeTextFile(big, file);
  const writes: Promise<void>[] = [];
  for (let d = 0; d < 40; d++) {
    for (let s = 0; s < 4; s++) {
      const folder = join(data, "tree", `directory_${d}`, `subdirectory_${s}`);
      await Deno.mkdir(folder, { recursive: true });
      for (let f = 0; f < 40; f++) {
        writes.push(Deno.writeTextFile(join(folder, `file_${f}_with_a_longer_name.txt`), "x"));
      }
    }
  }
  await Promise.all(writes);
  return { data, big, file };
}

/** The text of a result's one text block. */
function textOf(result: CallToolResult): string {
  assert.equal(result.content.length, 1);
  const [block] = result.content;
  assert.ok(block?.type === "text");
  return block.text;
}

/** The recorded `tool_call_response` events of the one conversation under `dir/ws`. */
function recordedResponses(dir: string): Record<string, unknown>[] {
  const [conversation] = [...Deno.readDirSync(join(dir, "ws", "conversations"))];
  assert.ok(conversation !== undefined, "a conversation was recorded");
  return Deno.readTextFileSync(
    join(dir, "ws", "conversations", conversation.name, "events.jsonl"),
  ).trim().split("\n").map((line) => JSON.parse(line)).filter((event) =>
    event.type === "tool_call_response"
  );
}

Deno.test("serve --stdio in front of server-filesystem: cut file reads, trees and searches are successes whose structured content matches the tool's schema, recorded as delivered", async () => {
  await cacheFilesystem();
  const dir = await Deno.makeTempDir({ prefix: "spillway_filesystem_" });
  try {
    const { data, big, file } = await writeData(dir);
    const config = join(dir, "config.toml");
    // auto: the tree (a JSON array) stays JSON; the file and the search (lines) are cut as head.
    await Deno.writeTextFile(
      config,
      `${filesystemProvider(data)}\n[conversation.tools.'*']\ntruncation = "auto"\n`,
    );
    const { client, stderr } = await serveStdio(dir, config);
    const results: Record<string, CallToolResult> = {};
    let schemas: Map<string, Record<string, unknown>>;
    try {
      // Listing first: the SDK client then checks each result against its tool's schema.
      const { tools } = await client.listTools();
      schemas = new Map(
        tools.flatMap((tool) =>
          tool.outputSchema === undefined ? [] : [[tool.name, tool.outputSchema]]
        ),
      );
      results.read_text_file = await client.callTool({
        name: "read_text_file",
        arguments: { path: big },
      }) as CallToolResult;
      results.directory_tree = await client.callTool({
        name: "directory_tree",
        arguments: { path: join(data, "tree") },
      }) as CallToolResult;
      results.search_files = await client.callTool({
        name: "search_files",
        arguments: { path: join(data, "tree"), pattern: "**/*.txt" },
      }) as CallToolResult;
    } finally {
      await client.close();
    }
    const ajv = new Ajv({ strict: false });
    const recorded = recordedResponses(dir);
    assert.equal(recorded.length, 3);
    for (const [i, [tool, result]] of Object.entries(results).entries()) {
      assert.notEqual(result.isError, true, `${tool}: ${textOf(result).slice(-200)}`);
      const text = textOf(result);
      assert.match(text, MARKER, `${tool} ends with the marker`);
      assert.ok(bytesOf(text) <= THRESHOLD && bytesOf(text) > THRESHOLD - 4096, `${tool} text`);
      const value = result.structuredContent as { content: string };
      const schema = schemas.get(tool);
      assert.ok(schema !== undefined, `${tool} lists an output schema`);
      const validate = ajv.compile(schema);
      assert.ok(validate(value), `${tool}: ${ajv.errorsText(validate.errors)}`);
      const json = JSON.stringify(value);
      assert.ok(bytesOf(json) <= THRESHOLD && bytesOf(json) > THRESHOLD - 4096, `${tool} value`);
      // The structured value holds the text's beginning, as the tool's own did.
      const kept = text.slice(0, text.lastIndexOf("\n... [truncated, "));
      const common = Math.min(kept.length, value.content.length) - 1;
      assert.equal(value.content.slice(0, common), kept.slice(0, common), `${tool} agree`);
      // Its _meta says the structured content was cut, and how much.
      const told = result._meta?.["spillway/structuredContentCut"] as { bytes: number } | undefined;
      assert.equal(told?.bytes, bytesOf(json), `${tool} _meta`);
      // Recorded as delivered: the text, and the structured value by size and digest.
      const event = recorded[i] ?? {};
      assert.equal(event["content"], text);
      assert.equal(event["is_error"], false);
      assert.deepEqual(event["structured_content"], { bytes: bytesOf(json), digest: sha256(json) });
    }
    const read = results.read_text_file!;
    assert.ok(file.startsWith((read.structuredContent as { content: string }).content));
    const readCut = read._meta?.["spillway/structuredContentCut"] as { originalBytes: number };
    assert.equal(readCut.originalBytes, bytesOf(JSON.stringify({ content: file })));
    // The tree's text, cut as JSON, still parses before its marker line.
    const tree = textOf(results.directory_tree!);
    const entries = JSON.parse(tree.slice(0, tree.lastIndexOf("\n... [truncated, ")));
    assert.ok(Array.isArray(entries) && entries[0].name === "directory_0");
    // Every search hit kept is a whole path under the tree.
    const hits = (results.search_files!.structuredContent as { content: string }).content
      .split("\n");
    assert.ok(hits.length > 1000);
    for (const hit of hits.slice(0, -1)) assert.match(hit, /file_\d+_with_a_longer_name\.txt$/);
    assert.doesNotMatch(stderr(), /differs from what was recorded/);
    assert.match(
      stderr(),
      new RegExp(
        "read_text_file: sent 256\\.0 KB of 4\\.0 MB to the assistant \\(size_threshold\\); " +
          "not one JSON value: cut as head; structured content cut to 256\\.0 KB of 4\\.\\d MB\n",
      ),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Why the Inspector cannot run here, or `undefined` when it can (from npm's cache). */
async function inspectorMissing(): Promise<string | undefined> {
  try {
    const { code } = await new Deno.Command("npx", {
      args: ["--offline", "-y", INSPECTOR, "--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return code === 0 ? undefined : `${INSPECTOR} is not in npm's cache`;
  } catch {
    return "no npx";
  }
}

const missing = REQUIRED ? undefined : await inspectorMissing();

Deno.test({
  name:
    "the MCP Inspector CLI in front of serve --stdio reads a 4 MB file from server-filesystem: a cut success, exit 0" +
    (missing === undefined ? "" : ` (ignored: ${missing})`),
  ignore: missing !== undefined,
  async fn() {
    await cacheFilesystem();
    const dir = await Deno.makeTempDir({ prefix: "spillway_inspector_" });
    try {
      const { data, big, file } = await writeData(dir);
      const config = join(dir, "config.toml");
      await Deno.writeTextFile(config, filesystemProvider(data));
      const run = await new Deno.Command("npx", {
        args: [
          "--offline",
          "-y",
          INSPECTOR,
          "--cli",
          Deno.execPath(),
          "run",
          "-A",
          CLI,
          "serve",
          "--stdio",
          "--workspace",
          join(dir, "ws"),
          "--config",
          config,
          "--",
          "--method",
          "tools/call",
          "--tool-name",
          "read_text_file",
          "--tool-arg",
          `path=${big}`,
        ],
        cwd: dir,
        env: { XDG_CONFIG_HOME: join(dir, "no-user-config") },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(run.stdout);
      const stderr = new TextDecoder().decode(run.stderr);
      assert.equal(run.code, 0, `${stdout.slice(-500)}\n${stderr.slice(-2000)}`);
      const result = JSON.parse(stdout) as CallToolResult;
      assert.equal(result.isError, false);
      assert.match(textOf(result), MARKER);
      const value = result.structuredContent as { content: string };
      assert.ok(value.content.length > 100_000 && file.startsWith(value.content));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
