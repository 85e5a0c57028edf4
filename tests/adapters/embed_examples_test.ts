/**
 * examples/embed/*.mjs as a builder runs them from the checkout (`deno run
 * -A`), against the loopback fake model (tests/adapters/_embed_examples.ts):
 * each prints the notice, and the model is sent the recorded cut.
 *
 * @module
 */

import { join } from "node:path";
import { assertExampleRun, EMBED_EXAMPLES, exampleModel } from "./_embed_examples.ts";

const ROOT = join(import.meta.dirname!, "..", "..");

for (const example of EMBED_EXAMPLES) {
  Deno.test(`examples/embed/${example}.mjs prints the notice and sends the model the recorded cut`, async () => {
    const scratch = await Deno.makeTempDir();
    const workspace = join(scratch, "ws");
    const model = exampleModel(example, scratch);
    try {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", `examples/embed/${example}.mjs`],
        cwd: ROOT,
        env: { ...model.env, SPILLWAY_WORKSPACE: workspace, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decoder = new TextDecoder();
      await assertExampleRun(model, workspace, {
        code,
        stdout: decoder.decode(stdout),
        stderr: decoder.decode(stderr),
      });
    } finally {
      await model.server.close();
      await Deno.remove(scratch, { recursive: true });
    }
  });
}
