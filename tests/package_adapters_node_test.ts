/**
 * The framework adapters under plain `node`, from the installed npm
 * package: examples/embed/*.mjs run in a folder where the tarball and the
 * packages each one's first line names are installed (from npm), against
 * the loopback fake model. The notice is printed and the model is sent the
 * recorded cut (tests/adapters/_embed_examples.ts). Ignored without a
 * tarball, unless SPILLWAY_REQUIRE_PACKAGE.
 *
 * @module
 */

import assert from "node:assert/strict";
import { installPackage, PACKAGE_REQUIRED, PACKAGE_TARBALL } from "./_installed_package.ts";
import { join } from "./_paths.ts";
import { assertExampleRun, EMBED_EXAMPLES, exampleModel } from "./adapters/_embed_examples.ts";

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
  "@mastra/core": "1.71.0",
  "@anthropic-ai/claude-agent-sdk": "0.3.337",
};

Deno.test({
  name:
    "examples/embed run under node from the installed package: notice printed, recorded == sent",
  ignore: PACKAGE_TARBALL === undefined && !PACKAGE_REQUIRED,
  fn: async () => {
    const installed = await installPackage();
    try {
      for (const example of EMBED_EXAMPLES) {
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
  const scratch = join(dir, `run-${example}`);
  await Deno.mkdir(scratch);
  const workspace = join(scratch, "ws");
  const model = exampleModel(example, scratch);
  try {
    const { code, stdout, stderr } = await new Deno.Command(join(env.PATH!, "node"), {
      args: [`${example}.mjs`],
      cwd: dir,
      env: { ...env, ...model.env, SPILLWAY_WORKSPACE: workspace },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    await assertExampleRun(model, workspace, {
      code,
      stdout: decoder.decode(stdout),
      stderr: `${example}: ${decoder.decode(stderr)}`,
    });
  } finally {
    await model.server.close();
  }
}
