/**
 * Nothing is dropped silently, end to end through `spillway query` (a
 * subprocess, as a person runs it): results with images, resource links,
 * embedded resources and structured content from the reference MCP server
 * are recorded as typed blocks, shown on the terminal as placeholder lines
 * (never as an empty `0 B` result), sent uncut; and a cut that drops such
 * blocks says so in its notice.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { CallToolResult } from "../src/service/sdk.ts";
import { FakeModelServer } from "../src/testing/fake_model_server.ts";
import {
  cacheEverything,
  callEverything,
  everythingProvider,
  HELLO_GZ,
  TINY_IMAGE,
  tinyImage,
} from "./_everything.ts";
import { conversationIdOf, query, REPO, responsesOf, workspaceWith } from "./_cli.ts";
import { serveStdio } from "./_serve_stdio.ts";
import { APIS, queryModel } from "./_model_apis.ts";

const sha256 = (bytes: Uint8Array | string) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

const SCRIPT = `[[cycles]]
text = "Let me look."
tool_calls = [
  { id = "call_1", name = "get-tiny-image", arguments = {} },
  { id = "call_2", name = "get-resource-links", arguments = { count = 2 } },
  { id = "call_3", name = "get-resource-reference", arguments = { resourceType = "Blob", resourceId = 2 } },
  { id = "call_4", name = "gzip-file-as-resource", arguments = { name = "hello.gz", data = "data:text/plain;base64,aGVsbG8=", outputType = "resource" } },
  { id = "call_5", name = "get-structured-content", arguments = { location = "Chicago" } },
]

[[cycles]]
text = "Done."
`;

Deno.test("query with server-everything: typed blocks recorded, placeholders shown, nothing cut or noticed", async () => {
  await cacheEverything();
  // What the server itself returns, to check the recorded digests against.
  const [image, gzip] = await callEverything(TINY_IMAGE, HELLO_GZ);
  const png = image?.content[1];
  const gz = gzip?.content[0];
  assert.ok(png?.type === "image" && gz?.type === "resource" && "blob" in gz.resource);
  const pngBytes = Buffer.from(png.data, "base64");
  const gzBytes = Buffer.from(gz.resource.blob, "base64");

  const workspace = await workspaceWith(everythingProvider(), { "script.toml": SCRIPT });
  try {
    const run = await query(workspace, ["--script", join(workspace, "script.toml"), "show me"]);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /to the assistant/, "nothing was cut: no notice");
    assert.doesNotMatch(run.stdout, / 0 B\n/);
    const size = (bytes: number) => `${(Math.floor(bytes * 10 / 1024) / 10).toFixed(1)} KB`;
    assert.ok(
      run.stdout.includes(
        "◂ get-tiny-image (call_1) result: 3 lines, 91 B\n" +
          "  │ Here's the image you requested:\n" +
          `  │ [image: image/png, ${size(pngBytes.length)}]\n` +
          "  │ The image above is the MCP logo.\n",
      ),
      run.stdout,
    );
    assert.ok(
      run.stdout.includes(
        "◂ gzip-file-as-resource (call_4) result: 1 line, 68 B\n" +
          `  │ [resource: demo://resource/session/hello.gz, application/gzip, ${gzBytes.length} B]\n`,
      ),
      run.stdout,
    );
    assert.match(
      run.stdout,
      / {2}│ \[resource_link: Blob Resource 1, demo:\/\/resource\/dynamic\/blob\/1, text\/plain\]\n/,
    );
    assert.match(
      run.stdout,
      / {2}│ \[resource: demo:\/\/resource\/dynamic\/blob\/2, text\/plain, \d+ B\]\n/,
    );

    const recorded = await responsesOf(workspace, conversationIdOf(run));
    assert.deepEqual(recorded.get("call_1"), {
      type: "tool_call_response",
      id: "call_1",
      content: "Here's the image you requested:\n" +
        `[image: image/png, ${size(pngBytes.length)}]\nThe image above is the MCP logo.`,
      is_error: false,
      blocks: [
        { type: "text", text: "Here's the image you requested:" },
        { type: "image", mime_type: "image/png", bytes: pngBytes.length, digest: sha256(pngBytes) },
        { type: "text", text: "The image above is the MCP logo." },
      ],
    });
    assert.deepEqual(recorded.get("call_2")?.["blocks"], [
      { type: "text", text: "Here are 2 resource links to resources available in this server:" },
      {
        type: "resource_link",
        uri: "demo://resource/dynamic/blob/1",
        name: "Blob Resource 1",
        mime_type: "text/plain",
      },
      {
        type: "resource_link",
        uri: "demo://resource/dynamic/text/2",
        name: "Text Resource 2",
        mime_type: "text/plain",
      },
    ]);
    const [, blob] = recorded.get("call_3")?.["blocks"] as Record<string, unknown>[];
    assert.equal(blob?.["type"], "resource");
    assert.match(String(blob?.["digest"]), /^sha256:[0-9a-f]{64}$/);
    // A result with no text block at all: its placeholder, never "".
    assert.deepEqual(recorded.get("call_4"), {
      type: "tool_call_response",
      id: "call_4",
      content:
        `[resource: demo://resource/session/hello.gz, application/gzip, ${gzBytes.length} B]`,
      is_error: false,
      blocks: [{
        type: "resource",
        uri: "demo://resource/session/hello.gz",
        mime_type: "application/gzip",
        bytes: gzBytes.length,
        digest: sha256(gzBytes),
      }],
    });
    const weather = recorded.get("call_5");
    assert.equal(weather?.["blocks"], undefined, "text only: its content is all of it");
    const json = String(weather?.["content"]);
    assert.deepEqual(weather?.["structured_content"], { bytes: json.length, digest: sha256(json) });
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

/**
 * A workspace whose config runs the report fixture server (and `more`
 * config), with `script.toml` calling its `tool` once as `call_1`.
 */
function reportWorkspace(tool: string, more = ""): Promise<string> {
  const server = join(REPO, "tests", "fixtures", "content", "report_server.ts");
  return workspaceWith(
    `[providers.mcp.reports]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ["run", "--quiet", "--no-lock", "--allow-env", ${JSON.stringify(server)}]

${more}`,
    {
      "script.toml": `[[cycles]]
text = "Calling ${tool}."
tool_calls = [{ id = "call_1", name = "${tool}", arguments = {} }]

[[cycles]]
text = "Read it."
`,
    },
  );
}

Deno.test("query: a cut that drops an image, audio and a link says so in its notice", async () => {
  const workspace = await reportWorkspace(
    "report",
    '[conversation.tools.report]\nsize_threshold = "1KB"\n',
  );
  try {
    const run = await query(workspace, [
      "--quiet",
      "--script",
      join(workspace, "script.toml"),
      "report",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stderr.split("\n")[0],
      // Its structured content ({"lines":200}) fits the threshold: it stays, whole.
      "report: sent 1.0 KB of 4.4 KB to the assistant (size_threshold); " +
        "dropped 1 image, 1 audio clip and 1 resource link",
    );
    const [, file] = /full result: (\S+)/.exec(run.stderr) ?? [];
    assert.ok(file, run.stderr);
    const full = await Deno.readTextFile(join(workspace, file));
    assert.ok(
      full.endsWith(
        "line 200 of the report\n[image: image/png, 69 B]\n[audio: audio/wav, 44 B]\n" +
          "[resource_link: full.pdf, file:///reports/full.pdf]",
      ),
      "the terminal's full result names every block",
    );
    const recorded = (await responsesOf(workspace, conversationIdOf(run))).get("call_1");
    assert.deepEqual(Object.keys(recorded ?? {}).sort(), [
      "content",
      "id",
      "is_error",
      "structured_content",
      "type",
    ]);
    assert.equal((recorded?.["structured_content"] as { bytes: number }).bytes, 13);
    assert.match(String(recorded?.["content"]), /\n\.\.\. \[truncated, 4\.4 KB → 1\.0 KB\]$/);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("query: a result of structured content alone shows and records its JSON, not an empty result", async () => {
  const workspace = await reportWorkspace("counts");
  try {
    const run = await query(workspace, ["--script", join(workspace, "script.toml"), "count"]);
    assert.equal(run.code, 0, run.stderr);
    const json = '{"summary":12,"findings":180,"appendix":8}';
    assert.ok(
      run.stdout.includes(`◂ counts (call_1) result: 1 line, ${json.length} B\n  │ ${json}\n`),
      run.stdout,
    );
    assert.deepEqual((await responsesOf(workspace, conversationIdOf(run))).get("call_1"), {
      type: "tool_call_response",
      id: "call_1",
      content: json,
      is_error: false,
      structured_content: { bytes: json.length, digest: sha256(json) },
    });
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("serve --stdio in front of server-everything: an SDK client gets the uncut image and resource blocks, recorded block by block", async () => {
  await cacheEverything();
  const dir = await Deno.makeTempDir({ prefix: "spillway_content_serve_" });
  try {
    const config = join(dir, "config.toml");
    await Deno.writeTextFile(config, everythingProvider());
    const { client, stderr } = await serveStdio(dir, config);
    let image: CallToolResult, gzip: CallToolResult;
    try {
      image = await client.callTool(TINY_IMAGE) as CallToolResult;
      gzip = await client.callTool(HELLO_GZ) as CallToolResult;
    } finally {
      await client.close();
    }
    // What the client got: the upstream's own blocks, payloads included.
    assert.deepEqual(image.content.map((block) => block.type), ["text", "image", "text"]);
    const png = image.content[1];
    assert.ok(png?.type === "image" && png.mimeType === "image/png");
    const gz = gzip.content[0];
    assert.ok(gz?.type === "resource" && "blob" in gz.resource);
    assert.doesNotMatch(stderr(), /to the assistant|differs from what was recorded/);

    const [conversation] = [...Deno.readDirSync(join(dir, "ws", "conversations"))];
    const events = Deno.readTextFileSync(
      join(dir, "ws", "conversations", conversation!.name, "events.jsonl"),
    ).trim().split("\n").map((line) => JSON.parse(line));
    const recorded = events.filter((e) => e.type === "tool_call_response");
    const pngBytes = Buffer.from(png.data, "base64");
    const gzBytes = Buffer.from(gz.resource.blob, "base64");
    assert.deepEqual(recorded[0].blocks, [
      { type: "text", text: "Here's the image you requested:" },
      { type: "image", mime_type: "image/png", bytes: pngBytes.length, digest: sha256(pngBytes) },
      { type: "text", text: "The image above is the MCP logo." },
    ]);
    assert.deepEqual(recorded[1].blocks, [{
      type: "resource",
      uri: "demo://resource/session/hello.gz",
      mime_type: "application/gzip",
      bytes: gzBytes.length,
      digest: sha256(gzBytes),
    }]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("query --model anthropic with server-everything: the image goes to the model as an image block, again when the conversation continues; OpenAI gets the placeholder", async () => {
  await cacheEverything();
  const png = await tinyImage();
  for (const api of APIS) {
    const server = FakeModelServer.start();
    const workspace = await workspaceWith(everythingProvider());
    try {
      server.reply(
        api.answer({
          text: "Looking.",
          toolCalls: [{ id: "call_img", name: "get-tiny-image", arguments: {} }],
        }),
        api.answer({ text: "A logo." }),
        api.answer({ text: "Still a logo." }),
      );
      const run = await queryModel(api, server, workspace, "Show me the logo");
      assert.equal(run.code, 0, run.stderr);
      const again = await queryModel(
        api,
        server,
        workspace,
        "--conversation",
        conversationIdOf(run),
        "And now?",
      );
      assert.equal(again.code, 0, again.stderr);
      assert.equal(server.requests.length, 3);
      for (const request of [server.requests[1]!, server.requests[2]!]) {
        const messages = request.body["messages"] as Record<string, unknown>[];
        if (api.name === "anthropic") {
          const result = messages.flatMap((m) => Array.isArray(m["content"]) ? m["content"] : [])
            .find((b) => (b as Record<string, unknown>)["type"] === "tool_result");
          assert.deepEqual((result as Record<string, unknown>)["content"], [
            { type: "text", text: "Here's the image you requested:" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
            { type: "text", text: "The image above is the MCP logo." },
          ]);
        } else {
          const tool = messages.find((m) => m["role"] === "tool");
          assert.match(
            String(tool?.["content"]),
            /^Here's the image you requested:\n\[image: image\/png, \d+\.\d KB\]\nThe image above is the MCP logo\.$/,
          );
        }
      }
    } finally {
      await server.close();
      await Deno.remove(workspace, { recursive: true });
    }
  }
});
