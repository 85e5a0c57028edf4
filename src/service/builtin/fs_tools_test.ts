import assert from "node:assert/strict";
import { join } from "node:path";
import type { ToolResult } from "../tool_source.ts";
import { BuiltinToolSource } from "./builtin_tool_source.ts";

/** A working directory `root/work` with files, a sibling secret and escaping symlinks. */
async function tree(): Promise<{ root: string; work: string } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "spillway_fs_" });
  const work = join(root, "work");
  await Deno.mkdir(join(work, "src", "deep"), { recursive: true });
  await Deno.writeTextFile(join(work, "README.md"), "# hello\n");
  await Deno.writeTextFile(join(work, "src", "b.ts"), "export const b = 1;\n");
  await Deno.writeTextFile(join(work, "src", "a.ts"), "export const a = 'é';\n");
  await Deno.writeTextFile(join(work, "src", "deep", "z.txt"), "z");
  await Deno.writeTextFile(join(root, "secret.txt"), "top secret");
  await Deno.symlink(join(root, "secret.txt"), join(work, "leak.txt"));
  await Deno.symlink(root, join(work, "up"));
  await Deno.symlink(join(work, "README.md"), join(work, "readme-link"));
  return {
    root,
    work,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

const signal = () => new AbortController().signal;

async function run(cwd: string, tool: string, args: Record<string, unknown>): Promise<ToolResult> {
  return await new BuiltinToolSource({ cwd }).call(tool, args, { signal: signal() });
}

function textOf(result: ToolResult): string {
  const [block] = result.content;
  assert.equal(block?.type, "text");
  return String(block?.text);
}

Deno.test("BuiltinToolSource lists fs_list_files and fs_read_file with object schemas", async () => {
  const tools = await new BuiltinToolSource({ cwd: "." }).list();
  assert.deepEqual(tools.map((t) => t.name), ["fs_list_files", "fs_read_file"]);
  assert.ok(tools.every((t) => t.inputSchema.type === "object" && t.description.length > 0));
});

Deno.test("fs_list_files lists one entry per line, sorted, directories with a trailing slash", async () => {
  await using t = await tree();
  const result = await run(t.work, "fs_list_files", {});
  assert.equal(result.isError, undefined);
  assert.equal(textOf(result), "README.md\nleak.txt\nreadme-link\nsrc/\nup");
  assert.equal(textOf(await run(t.work, "fs_list_files", { path: "src" })), "a.ts\nb.ts\ndeep/");
});

Deno.test("fs_list_files recursive walks the tree but never follows symlinks", async () => {
  await using t = await tree();
  const result = await run(t.work, "fs_list_files", { recursive: true });
  assert.equal(
    textOf(result),
    "README.md\nleak.txt\nreadme-link\nsrc/\nsrc/a.ts\nsrc/b.ts\nsrc/deep/\nsrc/deep/z.txt\nup",
  );
});

Deno.test("fs_read_file returns the file's text", async () => {
  await using t = await tree();
  assert.equal(
    textOf(await run(t.work, "fs_read_file", { path: "src/a.ts" })),
    "export const a = 'é';\n",
  );
  assert.equal(
    textOf(await run(t.work, "fs_read_file", { path: "./src/../README.md" })),
    "# hello\n",
  );
  assert.equal(textOf(await run(t.work, "fs_read_file", { path: "readme-link" })), "# hello\n");
});

Deno.test("the fs tools refuse paths outside the working directory, by .., absolute path or symlink", async () => {
  await using t = await tree();
  for (
    const [tool, path] of [
      ["fs_read_file", "../secret.txt"],
      ["fs_read_file", join(t.root, "secret.txt")],
      ["fs_read_file", "leak.txt"],
      ["fs_read_file", "up/secret.txt"],
      ["fs_list_files", ".."],
      ["fs_list_files", "up"],
      ["fs_list_files", "src/../../"],
    ] as const
  ) {
    const result = await run(t.work, tool, { path });
    assert.equal(result.isError, true, `${tool} ${path}`);
    assert.equal(textOf(result), `path \`${path}\` is outside the working directory`);
  }
});

Deno.test("the fs tools answer missing paths and wrong kinds with clear error results", async () => {
  await using t = await tree();
  const cases = [
    ["fs_read_file", { path: "nope.txt" }, "no such file or directory: `nope.txt`"],
    ["fs_read_file", { path: "src" }, "is a directory: `src`"],
    ["fs_read_file", {}, "fs_read_file: `path` is required"],
    ["fs_read_file", { path: 3 }, "fs_read_file: `path` must be a string, got 3"],
    ["fs_list_files", { path: "missing" }, "no such file or directory: `missing`"],
    ["fs_list_files", { path: "README.md" }, "not a directory: `README.md`"],
    [
      "fs_list_files",
      { recursive: "yes" },
      'fs_list_files: `recursive` must be a boolean, got "yes"',
    ],
  ] as const;
  for (const [tool, args, message] of cases) {
    const result = await run(t.work, tool, args);
    assert.deepEqual(result, { content: [{ type: "text", text: message }], isError: true });
  }
});

Deno.test("BuiltinToolSource turns a thrown error into an error result and refuses duplicate names", async () => {
  const source = new BuiltinToolSource({ cwd: ".", tools: [] }).register({
    name: "boom",
    description: "throws",
    inputSchema: { type: "object" },
    run: () => Promise.reject(new Error("disk on fire")),
  });
  assert.deepEqual(await source.call("boom", {}, { signal: signal() }), {
    content: [{ type: "text", text: "boom: disk on fire" }],
    isError: true,
  });
  assert.throws(
    () =>
      source.register({
        name: "boom",
        description: "",
        inputSchema: {},
        run: () => Promise.resolve(""),
      }),
    { name: "TypeError", message: "builtin tool `boom` is already registered" },
  );
});

Deno.test("BuiltinToolSource rejects promptly with the abort reason, even if the tool ignores its signal", async () => {
  let finish: (value: string) => void = () => {};
  const source = new BuiltinToolSource({ cwd: ".", tools: [] }).register({
    name: "stubborn",
    description: "ignores its signal",
    inputSchema: { type: "object" },
    run: () => new Promise<string>((resolve) => finish = resolve),
  });
  const controller = new AbortController();
  const call = source.call("stubborn", {}, { signal: controller.signal });
  const reason = new DOMException("cancelled", "AbortError");
  controller.abort(reason);
  await assert.rejects(call, (error) => error === reason);
  finish("too late");
});

Deno.test("the fs tools never reach a hidden folder under the working directory, by path, .., or symlink", async () => {
  await using t = await tree();
  const ws = join(t.work, "ws");
  await Deno.mkdir(join(ws, "conversations"), { recursive: true });
  await Deno.writeTextFile(join(ws, "conversations", "events.jsonl"), "recorded\n");
  await Deno.symlink(ws, join(t.work, "to-ws"));
  await Deno.symlink(join(ws, "conversations", "events.jsonl"), join(t.work, "src", "events"));
  const source = new BuiltinToolSource({ cwd: t.work, hidden: [ws] });
  const call = (tool: string, args: Record<string, unknown>) =>
    source.call(tool, args, { signal: signal() });
  for (
    const path of [
      "ws",
      "ws/conversations/events.jsonl",
      "./src/../ws/conversations/events.jsonl",
      "to-ws/conversations/events.jsonl",
      "src/events",
      "ws/never-was.txt",
      join(ws, "conversations", "events.jsonl"),
    ]
  ) {
    const read = await call("fs_read_file", { path });
    assert.equal(read.isError, true, path);
    assert.equal(
      textOf(read),
      `path \`${path}\` is in spillway's workspace, which the file tools do not reach`,
    );
  }
  const listed = await call("fs_list_files", { path: "to-ws" });
  assert.equal(listed.isError, true);
  // A walk of the working directory skips it: not even its name is listed.
  const walked = textOf(await call("fs_list_files", { recursive: true }));
  assert.ok(!walked.split("\n").some((line) => line.startsWith("ws")), walked);
  assert.match(walked, /^src\/deep\/z\.txt$/m);
  // Without it hidden, the same paths are read.
  assert.equal(textOf(await run(t.work, "fs_read_file", { path: "src/events" })), "recorded\n");
  // A hidden folder that does not exist yet is hidden all the same.
  const later = new BuiltinToolSource({ cwd: t.work, hidden: [join(t.work, "later")] });
  const refused = await later.call("fs_read_file", { path: "later/x" }, { signal: signal() });
  assert.match(textOf(refused), /is in spillway's workspace/);
});
