/**
 * `spillway config check` end to end: in-process through `main()` with an
 * injected io (workspace default, user layer, flags), and once as a real
 * subprocess through `deno run` to pin the exit codes scripts rely on.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_check_" });
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

Deno.test("config check reads <cwd>/.spillway/config.toml by default", async () => {
  await withDir(async (dir) => {
    await write(
      join(dir, ".spillway/config.toml"),
      `[conversation.tools.fs_read_file]\nrun = "skip"\n`,
    );
    const io = captureCommandIo({ env: {}, cwd: dir });
    assert.equal(await main(["config", "check"], io), 0);
    assert.match(io.out(), /^ {2}workspace {3}\.spillway\/config\.toml$/m);
    assert.match(io.out(), /^ {2}fs_read_file\s+run\s+skip\s+\.spillway\/config\.toml$/m);
    assert.equal(io.err(), "");
  });
});

Deno.test("config check shows the user layer, abbreviating the home directory", async () => {
  await withDir(async (dir) => {
    await write(
      join(dir, "home/.config/spillway/config.toml"),
      `[conversation.tools.'*']\nresult = "ask"\n`,
    );
    const io = captureCommandIo({ env: { HOME: join(dir, "home") }, cwd: dir });
    assert.equal(await main(["config", "check", "--workspace", "ws"], io), 0);
    assert.match(io.out(), /^ {2}user {8}~\/\.config\/spillway\/config\.toml$/m);
    assert.match(io.out(), /^ {2}workspace {3}ws\/config\.toml \(absent\)$/m);
    assert.match(io.out(), /result\s+ask\s+~\/\.config\/spillway\/config\.toml$/m);
  });
});

Deno.test("config check -v shows every setting; --quiet prints nothing when valid", async () => {
  await withDir(async (dir) => {
    const verbose = captureCommandIo({ env: {}, cwd: dir });
    assert.equal(await main(["config", "check", "-v"], verbose), 0);
    for (
      const key of [
        "timeout",
        "cancellation_response",
        "style.inline_results",
        "style.results_file_link",
      ]
    ) {
      assert.match(verbose.out(), new RegExp(` ${key.replace(".", "\\.")} `), key);
    }
    const quiet = captureCommandIo({ env: {}, cwd: dir });
    assert.equal(await main(["config", "check", "--quiet"], quiet), 0);
    assert.equal(quiet.out(), "");
    const quietBad = captureCommandIo({ env: {}, cwd: dir });
    assert.equal(await main(["config", "check", "--quiet", "--cfg", "x=1"], quietBad), 1);
    assert.match(quietBad.err(), /unknown key x/);
  });
});

Deno.test("config check never prints environment values of MCP servers", async () => {
  await withDir(async (dir) => {
    await write(
      join(dir, ".spillway/config.toml"),
      `[providers.mcp.gh]\ntype = "stdio"\ncommand = "gh"\nenvironment = { TOKEN = "s3cr3t" }\n`,
    );
    const io = captureCommandIo({ env: {}, cwd: dir });
    assert.equal(await main(["config", "check", "-v"], io), 0);
    assert.match(io.out(), /\(env: TOKEN\)/);
    assert.doesNotMatch(io.out(), /s3cr3t/);
  });
});

Deno.test("config check lists an upstream server's tools to check the entries naming them", async () => {
  await withDir(async (dir) => {
    const server = join(REPO, "examples", "upstream_server.ts");
    await write(
      join(dir, "config.toml"),
      `[conversation.tools.echo]\nsize_threshold = "1MB"\n` +
        `[conversation.tools.big_reprot]\nsize_threshold = "1MB"\n` +
        `[conversation.tools.say]\nsource = "mcp.demo.ech"\n` +
        `[providers.mcp.demo]\ntype = "stdio"\ncommand = ${JSON.stringify(Deno.execPath())}\n` +
        `arguments = ["run", "--quiet", "--allow-env", ${JSON.stringify(server)}]\n`,
    );
    const io = captureCommandIo({ env: {}, cwd: dir });
    assert.equal(await main(["config", "check", "--config", "config.toml", "--quiet"], io), 0);
    assert.equal(io.out(), "");
    assert.equal(
      io.err(),
      "warning: conversation.tools.big_reprot (config.toml:4): no source provides a tool named " +
        "big_reprot, so these settings are never used (did you mean big_report?)\n" +
        'warning: conversation.tools.say (config.toml:6): source = "mcp.demo.ech", but ' +
        "providers.mcp.demo lists no tool named ech (did you mean echo?), so query and serve " +
        "will not start\n",
    );
  });
});

Deno.test("config check rejects stray arguments as a usage error", async () => {
  const io = captureCommandIo({ env: {} });
  assert.equal(await main(["config", "check", "extra"], io), 2);
  assert.match(io.err(), /^spillway config check: unexpected argument "extra"\n/);
});

Deno.test("config check exits 0, 1 and 2 as a subprocess", async () => {
  await withDir(async (dir) => {
    await write(join(dir, "good/config.toml"), `[conversation.tools.t]\nsize_threshold = "1MB"\n`);
    await write(join(dir, "bad/config.toml"), `[conversation.tools.t]\nsize_threshold = "512"\n`);
    const run = async (...args: string[]) => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-read", "--allow-env", "src/cli.ts", "config", "check", ...args],
        cwd: REPO,
        env: { XDG_CONFIG_HOME: join(dir, "xdg"), NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      return { code: output.code, out: decode(output.stdout), err: decode(output.stderr) };
    };
    const [good, bad, usage] = await Promise.all([
      run("--workspace", join(dir, "good")),
      run("--workspace", join(dir, "bad")),
      run("--no-such-flag"),
    ]);
    assert.equal(good.code, 0, good.err);
    assert.match(good.out, /The configuration is valid/);
    // A warning is not a failure.
    assert.match(
      good.err,
      /^warning: conversation\.tools\.t \(.*\): no source provides a tool named t,/,
    );
    assert.equal(bad.code, 1, bad.err);
    assert.match(
      bad.err,
      /bad\/config\.toml:2: conversation\.tools\.t\.size_threshold = "512" is below the 1KB minimum/,
    );
    assert.equal(bad.out, "");
    assert.equal(usage.code, 2);
    assert.match(usage.err, /unknown flag --no-such-flag/);
  });
});

Deno.test("config check shows the model's key variable and whether it is set, never the key", async () => {
  await withDir(async (dir) => {
    await write(
      join(dir, "c.toml"),
      `[assistant.model]\nid = "openai/gpt-4.1-mini"\n[providers.llm.openai]\napi_key = "sk-in-file"\n`,
    );
    const secret = "sk-from-the-environment";
    const io = captureCommandIo({ env: { OPENAI_API_KEY: secret }, cwd: dir });
    assert.equal(await main(["config", "check", "--config", "c.toml"], io), 1);
    assert.match(io.err(), /c\.toml:4: providers\.llm\.openai\.api_key is not read: a key never/);
    assert.ok(!io.err().includes("sk-in-file"), io.err());
    const ok = captureCommandIo({ env: { OPENAI_API_KEY: secret }, cwd: dir });
    await Deno.writeTextFile(
      join(dir, "c.toml"),
      `[assistant.model]\nid = "openai/gpt-4.1-mini"\n`,
    );
    assert.equal(await main(["config", "check", "--config", "c.toml"], ok), 0);
    assert.match(
      ok.out(),
      /^ {2}providers\.llm\.openai\.api_key_env\s+OPENAI_API_KEY \(set\)\s+default$/m,
    );
    assert.ok(!ok.out().includes(secret) && !ok.err().includes(secret));
  });
});

Deno.test("--cfg with the '*' tool works as typed in a shell, quoted or not", async () => {
  await withDir(async (dir) => {
    const typed = [
      // The shell eats these quotes: spillway gets conversation.tools.*.size_threshold=1MB.
      `--cfg conversation.tools.'*'.size_threshold=1MB`,
      // The documented form.
      `--cfg 'conversation.tools.*.size_threshold=1MB'`,
      `--cfg "conversation.tools.'*'.size_threshold=1MB"`,
    ];
    for (const flag of typed) {
      const output = await new Deno.Command("sh", {
        args: ["-c", `"$DENO" run --allow-read --allow-env src/cli.ts config check ${flag}`],
        cwd: REPO,
        env: { DENO: Deno.execPath(), XDG_CONFIG_HOME: join(dir, "xdg"), NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(output.stdout);
      assert.equal(output.code, 0, `${flag}: ${new TextDecoder().decode(output.stderr)}`);
      assert.match(
        out,
        /'\*' +run +unattended +default\n +result .*\n +size_threshold +1MB +--cfg\n/,
      );
    }
  });
});

Deno.test("config check --model has query's help line and refuses a bad model in query's words", async () => {
  const helpLine = async (command: string[]) => {
    const io = captureCommandIo({ env: {} });
    assert.equal(await main([...command, "--help"], io), 0);
    return io.out().split("\n").find((line) => line.trimStart().startsWith("--model "));
  };
  const line = await helpLine(["config", "check"]);
  assert.equal(
    line,
    "  --model PROVIDER/MODEL   the model to ask, e.g. openai/gpt-4.1-mini (sets assistant.model.id)",
  );
  assert.equal(line, await helpLine(["query"]));
  await withDir(async (dir) => {
    const problem = async (command: string[]) => {
      const io = captureCommandIo({ env: {}, cwd: dir });
      assert.equal(await main([...command, "--model", "gpt-4.1"], io), 1);
      return io.err();
    };
    const checked = await problem(["config", "check"]);
    assert.match(checked, /^ {2}--model gpt-4\.1: assistant\.model\.id = "gpt-4\.1" is not valid/m);
    assert.equal(checked, await problem(["query", "hello"]));
  });
});
