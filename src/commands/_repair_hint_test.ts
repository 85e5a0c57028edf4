import assert from "node:assert/strict";
import { repairHint } from "./_repair_hint.ts";

const HEAD = "Repair without a model call (the log keeps every original byte):\n";

Deno.test("repairHint() names no workspace when it is the default one", () => {
  assert.equal(
    repairHint(["20261130-100000-bbbbbb", "20261130-110000-cccccc"], { tools: "cap" }, {
      dir: "/home/ann/repo/.spillway",
      cwd: "/home/ann/repo",
    }),
    HEAD +
      "  deno task spillway conversation compact --tools=cap 20261130-100000-bbbbbb 20261130-110000-cccccc\n",
  );
});

Deno.test("repairHint() names any other workspace, relative when inside the working directory", () => {
  const strip = { tools: "strip-responses", over: "32KB" } as const;
  assert.equal(
    repairHint(["20261130-100000-bbbbbb"], strip, { dir: "/repo/runs/ws", cwd: "/repo" }),
    HEAD +
      "  deno task spillway conversation compact --tools=strip-responses --over 32KB --workspace runs/ws 20261130-100000-bbbbbb\n",
  );
  assert.equal(
    repairHint(["20261130-100000-bbbbbb"], strip, { dir: "/tmp/it's mine", cwd: "/repo" }),
    HEAD +
      "  deno task spillway conversation compact --tools=strip-responses --over 32KB --workspace '/tmp/it'\\''s mine' 20261130-100000-bbbbbb\n",
  );
});

Deno.test("repairHint() names the --config files in their order, as the shell reads them back", () => {
  assert.equal(
    repairHint(["20261130-100000-bbbbbb"], { tools: "cap" }, {
      dir: "/repo/.spillway",
      cwd: "/repo",
      configFiles: ["store.toml", "/etc/spillway/my store.toml", "../team.toml"],
    }),
    HEAD +
      "  deno task spillway conversation compact --tools=cap --config store.toml --config '/etc/spillway/my store.toml' --config /team.toml 20261130-100000-bbbbbb\n",
  );
});
