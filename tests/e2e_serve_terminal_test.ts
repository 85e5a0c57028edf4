/**
 * `spillway serve --stdio` as an MCP client spawns it, with an upstream
 * server whose tool name, answer and stderr are hostile and a misspelled
 * tool entry: stderr (the person's) shows the warning, the notice and the
 * server's stderr inert, while stdout (the protocol) delivers the tool's
 * answer byte for byte: the protocol is never rewritten.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StdioClientTransport } from "../src/service/sdk.ts";
import { HOSTILE_TOOL } from "./fixtures/escapes/hostile_server.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const SERVER = join(REPO, "tests", "fixtures", "escapes", "hostile_server.ts");

Deno.test("serve --stdio keeps stderr inert and the protocol untouched", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_e2e_serve_terminal_" });
  try {
    await Deno.writeTextFile(
      join(dir, "config.toml"),
      `[conversation.tools.'*']\nsize_threshold = "1KB"\n` +
        `[conversation.tools.fs_lst_files]\nrun = "skip"\n` +
        `[providers.mcp.hostile]\ntype = "stdio"\ncommand = ${JSON.stringify(Deno.execPath())}\n` +
        `arguments = ["run", "--quiet", "--allow-env", ${JSON.stringify(SERVER)}]\n`,
    );
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", join(REPO, "src", "cli.ts"), "serve", "--stdio", "--workspace", dir],
      cwd: dir,
      env: { XDG_CONFIG_HOME: join(dir, "no-user-config") },
      stderr: "pipe",
    });
    const chunks: Uint8Array[] = [];
    transport.stderr?.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    const client = new Client({ name: "e2e-serve-terminal", version: "1.0.0" });
    await client.connect(transport);
    const result = await client.callTool({ name: HOSTILE_TOOL, arguments: {} });
    await client.close();

    // The protocol carries the tool's text as the tool wrote it (capped, not rewritten).
    const content = result.content as { type: string; text: string }[];
    assert.ok(content[0]?.text.startsWith("\x1b]8;;http://evil\x07link"), content[0]?.text);

    const bytes = new Uint8Array(chunks.flatMap((chunk) => [...chunk]));
    assert.ok(!bytes.includes(0x1b), "stderr holds a raw ESC byte");
    const err = new TextDecoder().decode(bytes);
    assert.doesNotMatch(err, /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
    const lines = err.split("\n");
    assert.match(
      err,
      /^warning: conversation\.tools\.fs_lst_files \(\/.+\/config\.toml:4\): no source provides a tool named fs_lst_files, so these settings are never used \(did you mean fs_list_files\?\)$/m,
    );
    assert.ok(
      lines.includes(
        "peek␛]0;owned\\x07\\x9b2J\\u202e: sent 1.0 KB of 2.0 KB to the assistant (size_threshold)",
      ),
      err,
    );
    assert.ok(lines.includes("␛]0;owned-by-stderr\\x07starting"), err);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
