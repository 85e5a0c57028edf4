/**
 * The framework adapters under plain `node`, from the installed npm
 * package: examples/embed/*.mjs run in a folder where the tarball and the
 * packages each one's first line names are installed (from npm), against
 * the loopback fake model. The notice is printed and the model is sent the
 * recorded cut. Ignored without a tarball, unless SPILLWAY_REQUIRE_PACKAGE.
 *
 * @module
 */

import assert from "node:assert/strict";
import { FileStreamStore } from "../src/stream/file_stream_store.ts";
import type { ToolCallResponseEvent } from "../src/stream/events.ts";
import { FakeModelServer } from "../src/testing/fake_model_server.ts";
import { installPackage, PACKAGE_REQUIRED, PACKAGE_TARBALL } from "./_installed_package.ts";
import { join } from "./_paths.ts";
import { responsesReply, sentOutputs } from "./adapters/_responses_reply.ts";

const ROOT = join(import.meta.dirname!, "..");
/** The versions the Deno tests use (deno.json), for each package an example requires. */
const VERSIONS: Record<string, string> = {
  "ai": "7.0.185",
  "@ai-sdk/openai": "4.0.126",
  "@openai/agents": "0.20.0",
  "langchain": "1.5.14",
  "@langchain/openai": "1.6.0",
  "@langchain/core": "1.4.0",
  "zod": "4.6.7",
};

Deno.test({
  name:
    "examples/embed run under node from the installed package: notice printed, recorded == sent",
  ignore: PACKAGE_TARBALL === undefined && !PACKAGE_REQUIRED,
  fn: async () => {
    const installed = await installPackage();
    try {
      for (const example of ["ai-sdk", "openai-agents", "langchain"]) {
        const source = await Deno.readTextFile(join(ROOT, "examples", "embed", `${example}.mjs`));
        const requires = /^\/\/ requires: (.+)$/m.exec(source.split("\n")[0]!)?.[1]?.split(" ");
        assert.ok(requires !== undefined, `${example}.mjs names what it requires`);
        const npm = await new Deno.Command(join(installed.env.PATH!, "npm"), {
          args: [
            "install",
            "--no-audit",
            "--no-fund",
            "--prefer-offline",
            ...requires.map((name) => `${name}@${VERSIONS[name]}`),
          ],
          cwd: installed.dir,
          env: installed.env,
          clearEnv: true,
        }).output();
        assert.ok(npm.success, new TextDecoder().decode(npm.stderr));
        await Deno.writeTextFile(join(installed.dir, `${example}.mjs`), source);
        await runExample(installed.dir, installed.env, example);
      }
    } finally {
      await installed.remove();
    }
  },
});

async function runExample(dir: string, env: Record<string, string>, example: string) {
  const workspace = join(dir, `ws-${example}`);
  const server = FakeModelServer.start([
    responsesReply({ calls: [{ id: "c1", name: "big_log", arguments: { bytes: 1_000_000 } }] }),
    responsesReply({ text: "the workers are ready" }),
  ]);
  try {
    const { code, stdout, stderr } = await new Deno.Command(join(env.PATH!, "node"), {
      args: [`${example}.mjs`],
      cwd: dir,
      env: {
        ...env,
        OPENAI_BASE_URL: `${server.url}/v1`,
        OPENAI_API_KEY: "test",
        SPILLWAY_WORKSPACE: workspace,
      },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(stdout);
    const err = new TextDecoder().decode(stderr);
    assert.equal(code, 0, `${example}: ${err}`);
    assert.ok(
      err.includes("big_log: sent 256.0 KB of 976.5 KB to the assistant (size_threshold)\n"),
      err,
    );
    const id = /recorded: conversation (\S+)/.exec(out)?.[1];
    assert.ok(id !== undefined, out);
    const stream = await new FileStreamStore(join(workspace, "conversations")).open(id);
    const { events } = await stream.load();
    await stream.close();
    const response = events.find((e): e is ToolCallResponseEvent =>
      e.type === "tool_call_response"
    );
    const sent = sentOutputs(server.requests[1]!).get("c1");
    assert.equal(sent, response?.content);
    assert.ok(sent?.includes("\n... [truncated, 976.5 KB → 256.0 KB]\n"));
  } finally {
    await server.close();
  }
}
