import assert from "node:assert/strict";
import { main } from "../cli.ts";
import { captureCommandIo } from "./command_io.ts";
import { parseListenAddress } from "./serve.ts";

Deno.test("parseListenAddress() takes PORT, HOST:PORT and [IPv6]:PORT", () => {
  assert.deepEqual(parseListenAddress("8931"), { hostname: "127.0.0.1", port: 8931 });
  assert.deepEqual(parseListenAddress("0.0.0.0:80"), { hostname: "0.0.0.0", port: 80 });
  assert.deepEqual(parseListenAddress("[::1]:9000"), { hostname: "::1", port: 9000 });
  assert.throws(() => parseListenAddress("http://x"), /--http `http:\/\/x` is not an address/);
  assert.throws(() => parseListenAddress("70000"), /not an address/);
});

Deno.test("serve --no-auth on a non-loopback address is refused at start", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["serve", "--http", "0.0.0.0:0", "--no-auth"], io), 2);
  assert.match(io.err(), /--no-auth is refused on `0\.0\.0\.0`/);
});

Deno.test("serve needs exactly one transport, and a client ceiling of at least 1KB", async () => {
  let io = captureCommandIo();
  assert.equal(await main(["serve"], io), 2);
  assert.match(io.err(), /choose one transport: --stdio or --http/);
  io = captureCommandIo();
  assert.equal(await main(["serve", "--stdio", "--client-ceiling", "512"], io), 2);
  assert.match(io.err(), /--client-ceiling `512` is below the 1KB minimum/);
});

Deno.test("serve --help names each known client's ceiling and advises none above it", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["serve", "--help"], io), 0);
  const help = io.out().replaceAll("\n", " ");
  for (
    const line of [
      "claude-code (Claude Code) 500,000 bytes",
      "codex-mcp-client (Codex) 11,900 bytes",
      "gemini-cli-mcp-client (Gemini CLI) 39,900 bytes",
      "(client ceiling: codex)",
      '[serve.client_ceilings] "NAME" = "SIZE"',
      "set no ceiling above what the client shows its model whole",
      "the URL is printed on stdout",
    ]
  ) {
    assert.ok(help.includes(line), `the help lacks ${line}`);
  }
});
