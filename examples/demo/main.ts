/**
 * `deno task demo`: the main job on embedded defaults, from a fresh clone
 * with nothing configured. A scripted assistant calls a builtin tool, two
 * local commands and an upstream stdio MCP server, two of them returning
 * multi-megabyte results; spillway caps them, records the batch durably and
 * delivers exactly what it recorded. The terminal shows the calls, the
 * notices and where the conversation was written.
 *
 * The demo workspace is `.spillway/demo`: rerun the same turn by hand with
 *
 *   deno task spillway query --workspace .spillway/demo \
 *     --script examples/demo/script.toml "Look around and run the tests"
 *
 * @module
 */

import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../src/cli.ts";
import { denoCommandIo } from "../../src/commands/command_io.ts";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const workspace = join(repo, ".spillway", "demo");
const config = await Deno.readTextFile(join(repo, "examples", "demo", "config.toml"));
await Deno.mkdir(workspace, { recursive: true });
// `deno` inside the config means this very Deno: no PATH lookup needed.
await Deno.writeTextFile(
  join(workspace, "config.toml"),
  config.replaceAll('"deno"', JSON.stringify(Deno.execPath())),
);

const io = denoCommandIo();
io.stdout(
  "spillway demo: a scripted assistant runs four tools; two of them return megabytes.\n" +
    "Each response is capped by its tool's size_threshold (256KB by default), the batch\n" +
    "by the 2 MiB ceiling, and recorded durably before it is delivered.\n\n",
);
const code = await main([
  "query",
  "--workspace",
  relative(repo, workspace),
  "--script",
  "examples/demo/script.toml",
  "Look around the repository and run the tests",
], { ...io, cwd: repo }); // paths (tools, workspace) are relative to the repository
Deno.exit(code);
