/**
 * The npm package on a machine with Node and npm but no Deno: installed from
 * the tarball into an empty folder, `npx spillway serve --stdio` is the MCP
 * server of a client that speaks JSON-RPC over its stdin and stdout. A local
 * tool prints 5 MB: the client gets 256 KB and the marker, and the
 * conversation records exactly that text.
 */

import assert from "node:assert/strict";
import { installPackage, PACKAGE_REQUIRED, PACKAGE_TARBALL } from "./_installed_package.ts";
import { join } from "./_paths.ts";

const ignore = PACKAGE_TARBALL === undefined && !PACKAGE_REQUIRED;

/** A local tool that prints 5 MiB of "x", run by the node on PATH. */
const CONFIG = `
[conversation.tools.five_mb]
source = "local"
command = ["node", "-e", "process.stdout.write('x'.repeat(5 * 1024 * 1024))"]
description = "Prints 5 MB"
`;

Deno.test({
  name: "npx spillway --version runs from the installed package with no deno on PATH",
  ignore,
  async fn() {
    const installed = await installPackage();
    try {
      const output = await new Deno.Command(join(installed.env.PATH!, "npx"), {
        args: ["spillway", "--version"],
        cwd: installed.dir,
        env: installed.env,
        clearEnv: true,
      }).output();
      const version =
        JSON.parse(await Deno.readTextFile(join(import.meta.dirname!, "..", "deno.json")))
          .version;
      assert.equal(new TextDecoder().decode(output.stdout), `spillway ${version}\n`);
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    } finally {
      await installed.remove();
    }
  },
});

Deno.test({
  name: "npx spillway serve --stdio caps a 5 MB local tool result and records what it delivers",
  ignore,
  async fn() {
    const installed = await installPackage();
    try {
      await Deno.writeTextFile(join(installed.dir, "config.toml"), CONFIG);
      const child = new Deno.Command(join(installed.env.PATH!, "npx"), {
        args: ["spillway", "serve", "--stdio", "--workspace", "ws", "--config", "config.toml"],
        cwd: installed.dir,
        env: installed.env,
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      const answers = new Answers(child.stdout);
      const writer = child.stdin.getWriter();
      const send = (message: object) =>
        writer.write(
          new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`),
        );
      await send({
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "package-test", version: "1" },
        },
      });
      await answers.to(1);
      await send({ method: "notifications/initialized" });
      await send({ id: 2, method: "tools/list" });
      const listed = await answers.to(2);
      assert.deepEqual(listed.result?.tools?.map((tool) => tool.name), ["five_mb"]);
      await send({ id: 3, method: "tools/call", params: { name: "five_mb", arguments: {} } });
      const called = await answers.to(3);
      await writer.close();
      assert.equal((await child.status).code, 0, await stderr);
      const delivered = called.result?.content?.[0]?.text ?? "";
      assert.ok(delivered.endsWith("\n... [truncated, 5.0 MB → 256.0 KB]"), delivered.slice(-80));
      assert.match(await stderr, /^five_mb: sent 256\.0 KB of 5\.0 MB to the assistant/m);
      const conversations = [...Deno.readDirSync(join(installed.dir, "ws", "conversations"))];
      assert.equal(conversations.length, 1);
      const events = Deno.readTextFileSync(
        join(installed.dir, "ws", "conversations", conversations[0]!.name, "events.jsonl"),
      ).trim().split("\n").map((line) => JSON.parse(line));
      const response = events.find((event) => event.type === "tool_call_response");
      assert.equal(response.content, delivered, "recorded == delivered");
    } finally {
      await installed.remove();
    }
  },
});

/** The part of a JSON-RPC answer these tests read. */
interface Answer {
  readonly id?: number;
  readonly result?: {
    readonly tools?: readonly { readonly name: string }[];
    readonly content?: readonly { readonly text?: string }[];
  };
}

/** The answers read from a server's stdout, newline-delimited JSON, in order. */
class Answers {
  readonly #messages: AsyncGenerator<Answer>;

  constructor(stdout: ReadableStream<Uint8Array>) {
    this.#messages = jsonLines(stdout);
  }

  /** The answer to request `id` (notifications before it are skipped). */
  async to(id: number): Promise<Answer> {
    // next(), not for-await: leaving a for-await loop would end the generator.
    for (;;) {
      const { done, value } = await this.#messages.next();
      if (done) break;
      if (value.id === id) return value;
    }
    throw new Error(`the server's stdout ended before the answer to request ${id}`);
  }
}

/** The JSON messages of a newline-delimited stream, one at a time. */
async function* jsonLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<Answer> {
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") yield JSON.parse(line);
  }
}
