import assert from "node:assert/strict";
import { join } from "node:path";
import { SpillwayError } from "../errors/spillway_error.ts";
import { loadConfig, userConfigPath } from "./load_config.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_config_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

async function rejection(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SpillwayError && error.code === "config_invalid", String(error));
    return error.details["errors"] as string[];
  }
  assert.fail("expected loadConfig() to reject");
}

Deno.test("loadConfig() layers user < workspace < --config files < --cfg, key by key", async () => {
  await withDir(async (dir) => {
    await write(
      join(dir, "xdg/spillway/config.toml"),
      `[conversation.tools.'*']\nrun = "ask"\nresult = "ask"\nsize_threshold = "1MB"\ntimeout = 5\n`,
    );
    await write(
      join(dir, "ws/config.toml"),
      `[conversation.tools.'*']\nresult = "edit"\nsize_threshold = "2MB"\n`,
    );
    await write(join(dir, "a.toml"), `[conversation.tools.'*']\nsize_threshold = "3MB"\n`);
    await write(join(dir, "b.toml"), `[conversation.tools.'*']\nsize_threshold = "4MB"\n`);
    const config = await loadConfig({
      env: { XDG_CONFIG_HOME: join(dir, "xdg"), HOME: join(dir, "home") },
      cwd: dir,
      workspace: "ws",
      configFiles: ["a.toml", "b.toml"],
      cfg: ["conversation.tools.'*'.timeout=7"],
    });
    const tool = config.tool("t");
    assert.equal(tool.run(), "ask");
    assert.equal(tool.origin("run"), join(dir, "xdg/spillway/config.toml"));
    assert.equal(tool.result(), "edit");
    assert.equal(tool.origin("result"), "ws/config.toml");
    assert.equal(tool.sizeThreshold().toString(), "4MB");
    assert.equal(tool.origin("size_threshold"), "b.toml");
    assert.equal(tool.timeoutMs(), 7000);
    assert.equal(tool.origin("timeout"), "--cfg");
    assert.equal(tool.origin("style.inline_results"), "default");
    assert.deepEqual(
      config.sources.map((s) => [s.kind, s.label, s.present]),
      [
        ["default", "default", true],
        ["user", join(dir, "xdg/spillway/config.toml"), true],
        ["workspace", "ws/config.toml", true],
        ["file", "a.toml", true],
        ["file", "b.toml", true],
        ["cfg", "--cfg", true],
      ],
    );
    assert.equal(config.sources[5]?.assignment, "conversation.tools.'*'.timeout=7");
  });
});

Deno.test("loadConfig() is fine without user and workspace files and records them as absent", async () => {
  await withDir(async (dir) => {
    const config = await loadConfig({ env: { HOME: dir }, cwd: dir, workspace: ".spillway" });
    assert.deepEqual(
      config.sources.map((s) => [s.kind, s.label, s.present]),
      [
        ["default", "default", true],
        ["user", join(dir, ".config/spillway/config.toml"), false],
        ["workspace", ".spillway/config.toml", false],
      ],
    );
    assert.equal(config.tool("x").sizeThreshold().toString(), "256KB");
  });
});

Deno.test("userConfigPath() prefers an absolute XDG_CONFIG_HOME, else HOME/.config", () => {
  assert.equal(userConfigPath({ XDG_CONFIG_HOME: "/x", HOME: "/h" }), "/x/spillway/config.toml");
  assert.equal(
    userConfigPath({ XDG_CONFIG_HOME: "rel", HOME: "/h" }),
    "/h/.config/spillway/config.toml",
  );
  assert.equal(
    userConfigPath({ XDG_CONFIG_HOME: "", HOME: "/h" }),
    "/h/.config/spillway/config.toml",
  );
  assert.equal(userConfigPath({}), undefined);
});

Deno.test("loadConfig() rejects a missing --config file, naming it", async () => {
  await withDir(async (dir) => {
    assert.deepEqual(
      await rejection(loadConfig({ env: {}, cwd: dir, configFiles: ["gone.toml"] })),
      [
        "gone.toml: config file not found",
      ],
    );
  });
});

Deno.test("loadConfig() reports an unreadable config file", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(join(dir, "adir"));
    const [problem] = await rejection(loadConfig({ env: {}, cwd: dir, configFiles: ["adir"] }));
    assert.match(problem ?? "", /^adir: cannot read config file: /);
  });
});

Deno.test("loadConfig() collects the problems of every layer, in layer order", async () => {
  await withDir(async (dir) => {
    await write(join(dir, "ws/config.toml"), `[conversation.tools.x]\nrun = "never"\n`);
    await write(join(dir, "a.toml"), `[conversation.tools.x]\nresult = "never"\n`);
    const found = await rejection(loadConfig({
      env: {},
      cwd: dir,
      workspace: "ws",
      configFiles: ["a.toml"],
      cfg: ["conversation.tools.x.size_threshold=512", "oops"],
    }));
    assert.deepEqual(found, [
      'ws/config.toml:2: conversation.tools.x.run = "never" is not valid (expected one of: ask, unattended, edit, skip)',
      'a.toml:2: conversation.tools.x.result = "never" is not valid (expected one of: unattended, ask, edit, skip)',
      '--cfg conversation.tools.x.size_threshold=512: conversation.tools.x.size_threshold = 512 is below the 1KB minimum: use "unlimited" for no limit, or result = "skip" for no result at all',
      "--cfg oops: expected key=value (e.g. --cfg 'conversation.tools.*.run=ask')",
    ]);
  });
});

Deno.test("loadConfig() checks tool and provider settings across layers", async () => {
  await withDir(async (dir) => {
    await write(
      join(dir, "ws/config.toml"),
      `[conversation.tools.t]\nsource = "local"\n[providers.mcp.gh]\ntype = "stdio"\ncommand = "gh"\nenvironment = { A = "1", B = "2" }\n`,
    );
    await write(
      join(dir, "more.toml"),
      `[conversation.tools.t]\ncommand = ["t", "--fast"]\n[providers.mcp.gh]\nenvironment = { B = "3" }\n`,
    );
    const config = await loadConfig({
      env: {},
      cwd: dir,
      workspace: "ws",
      configFiles: ["more.toml"],
      cfg: ['conversation.tools.t.command=["t2"]'],
    });
    assert.deepEqual(config.tool("t").command(), ["t2"]);
    assert.equal(config.tool("t").origin("command"), "--cfg");
    assert.equal(config.tool("t").origin("source"), "ws/config.toml");
    const gh = config.mcpProvider("gh");
    assert.ok(gh?.type === "stdio");
    assert.deepEqual(gh.environment, { A: "1", B: "3" });
    assert.equal(gh.origins["environment.B"], "more.toml");
    assert.equal(gh.origins["environment.A"], "ws/config.toml");
  });
});

Deno.test("loadConfig() skips cross-layer checks when a layer did not parse", async () => {
  await withDir(async (dir) => {
    await write(join(dir, "ws/config.toml"), `[conversation.tools.t]\nsource = "mcp.gh"\n`);
    await write(join(dir, "broken.toml"), `[providers.mcp.gh\n`);
    const found = await rejection(loadConfig({
      env: {},
      cwd: dir,
      workspace: "ws",
      configFiles: ["broken.toml"],
    }));
    assert.equal(found.length, 1);
    assert.match(found[0] ?? "", /^broken\.toml:1:\d+: TOML syntax error: /);
  });
});

Deno.test("loadConfig() reads --cfg values as TOML when they are TOML, else as strings", async () => {
  const config = await loadConfig({
    env: {},
    cfg: [
      "conversation.tools.'*'.size_threshold=1MB",
      "conversation.tools.x.style.inline_results=0",
      'conversation.tools.y.cancellation_response="Stopped."',
      "conversation.tools.z.cancellation_response=Stopped, no reason.",
      "conversation.tools.'*'.run = edit",
    ],
  });
  assert.equal(config.tool("any").sizeThreshold().toString(), "1MB");
  assert.equal(config.tool("x").inlineResults(), 0);
  assert.equal(config.tool("y").cancellationResponse(), "Stopped.");
  assert.equal(config.tool("z").cancellationResponse(), "Stopped, no reason.");
  assert.equal(config.tool("any").run(), "edit");
  assert.deepEqual(config.toolNames(), ["x", "y", "z"]);
});

Deno.test("loadConfig() reads the model and its API, --model winning over every layer", async () => {
  await withDir(async (dir) => {
    await write(
      join(dir, "ws/config.toml"),
      `[assistant.model]\nid = "anthropic/claude-sonnet-4-5"\n\n` +
        `[providers.llm.openai]\nbase_url = "http://127.0.0.1:11434/v1"\n`,
    );
    // The public Anthropic endpoint needs ANTHROPIC_API_KEY, which this environment lacks.
    assert.deepEqual(await rejection(loadConfig({ env: {}, cwd: dir, workspace: "ws" })), [
      `ws/config.toml:2: assistant.model.id = "anthropic/claude-sonnet-4-5" needs an API key, ` +
      "and the environment variable ANTHROPIC_API_KEY is not set (export it, or name the " +
      "variable that holds the key in providers.llm.anthropic.api_key_env; a local server " +
      "that takes no key needs only providers.llm.anthropic.base_url)",
    ]);
    const config = await loadConfig({
      env: {},
      cwd: dir,
      workspace: "ws",
      cfg: ["assistant.model.id=openai/gpt-4.1-mini"],
      model: "openai/qwen2.5:7b",
    });
    assert.deepEqual(config.model().value, { provider: "openai", model: "qwen2.5:7b" });
    assert.equal(config.model().origin, "--model");
    assert.equal(config.model().at, "--model openai/qwen2.5:7b");
    assert.deepEqual(config.sources.at(-1), {
      kind: "model",
      label: "--model",
      present: true,
      assignment: "openai/qwen2.5:7b",
    });
    const openai = config.llmProvider("openai");
    assert.equal(openai.baseUrl, "http://127.0.0.1:11434/v1");
    assert.equal(openai.apiKeyEnv, "OPENAI_API_KEY");
    assert.deepEqual(openai.origins, { api_key_env: "default", base_url: "ws/config.toml" });
  });
});

Deno.test("loadConfig() accepts a hosted model when its key variable is set, and only checks that it is", async () => {
  const config = await loadConfig({
    env: { MY_KEY: "sk-secret" },
    cfg: ["providers.llm.openai.api_key_env=MY_KEY"],
    model: "openai/gpt-4.1-mini",
  });
  assert.equal(config.llmProvider("openai").apiKeyEnv, "MY_KEY");
  assert.ok(!JSON.stringify(config.llmProvider("openai")).includes("sk-secret"));
  const errors = await rejection(
    loadConfig({
      env: { MY_KEY: "" },
      cfg: ["providers.llm.openai.api_key_env=MY_KEY"],
      model: "openai/x",
    }),
  );
  assert.match(errors[0]!, /^--model openai\/x: .* MY_KEY is not set/);
});

Deno.test("loadConfig() names a malformed --model by its flag", async () => {
  const errors = await rejection(loadConfig({ env: {}, model: "gpt-4" }));
  assert.deepEqual(errors, [
    '--model gpt-4: assistant.model.id = "gpt-4" is not valid (expected "<provider>/<model>" ' +
    'with a provider among openai, anthropic, e.g. "openai/gpt-4.1-mini", or "script")',
  ]);
});
