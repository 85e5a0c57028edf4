/**
 * The HAProxy configuration docs/security.md gives, run as written (its
 * ports and certificate swapped for the test's own): an SDK client over
 * HTTPS through HAProxy initializes, lists the tools and calls one, and
 * the gateway behind it records the call. Also that the proxy's
 * `timeout http-request` closes a connection whose headers never end,
 * which Deno's server alone would keep open. Ignored (saying why) without
 * `haproxy` and `openssl`; `.ci/run` installs both.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./_free_port.ts";
import { startHttpGateway, StreamLines, textOf } from "./gateway_fixtures.ts";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";

const SECURITY_DOC = fileURLToPath(new URL("../docs/security.md", import.meta.url));

async function missing(program: string): Promise<boolean> {
  try {
    await new Deno.Command(program, { args: ["-v"], stdout: "null", stderr: "null" }).output();
    return false;
  } catch {
    return true;
  }
}

const absent = [
  (await missing("haproxy")) ? "haproxy" : "",
  (await missing("openssl")) ? "openssl" : "",
]
  .filter((name) => name !== "");
const REQUIRED = Deno.env.get("SPILLWAY_REQUIRE_HAPROXY") === "1";

/** The ```haproxy block of docs/security.md. */
async function documentedConfig(): Promise<string> {
  const doc = await Deno.readTextFile(SECURITY_DOC);
  const block = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block !== undefined, "docs/security.md has a ```haproxy block");
  return block;
}

Deno.test({
  name: "the HAProxy configuration of docs/security.md serves MCP over TLS" +
    (absent.length > 0 && !REQUIRED ? ` (ignored: no ${absent.join(", ")})` : ""),
  ignore: absent.length > 0 && !REQUIRED,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "spillway_proxy_" });
    await using gw = await startHttpGateway();
    try {
      // A CA and a leaf it signs (rustls refuses a self-signed certificate as a server's own).
      const file = (name: string) => join(dir, name);
      await Deno.writeTextFile(
        file("leaf.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
      );
      const steps = [
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=spillway test CA",
          "-keyout",
          file("ca.key"),
          "-out",
          file("ca.pem"),
        ],
        [
          "req",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-subj",
          "/CN=localhost",
          "-keyout",
          file("leaf.key"),
          "-out",
          file("leaf.csr"),
        ],
        [
          "x509",
          "-req",
          "-in",
          file("leaf.csr"),
          "-CA",
          file("ca.pem"),
          "-CAkey",
          file("ca.key"),
          "-CAcreateserial",
          "-days",
          "1",
          "-extfile",
          file("leaf.ext"),
          "-out",
          file("leaf.pem"),
        ],
      ];
      for (const args of steps) {
        const made = await new Deno.Command("openssl", { args, stdout: "null", stderr: "piped" })
          .output();
        assert.ok(made.success, new TextDecoder().decode(made.stderr));
      }
      const certificate = await Deno.readTextFile(file("ca.pem"));
      await Deno.writeTextFile(
        file("spillway.pem"),
        (await Deno.readTextFile(file("leaf.pem"))) + (await Deno.readTextFile(file("leaf.key"))),
      );
      const proxyPort = freePort();
      const gatewayPort = gw.serving.url.port;
      const documented = await documentedConfig();
      const config = documented
        .replace(
          "bind :8443 ssl crt /etc/haproxy/spillway.pem",
          `bind 127.0.0.1:${proxyPort} ssl crt ${join(dir, "spillway.pem")}`,
        )
        .replaceAll("127.0.0.1:8931", `127.0.0.1:${gatewayPort}`);
      assert.notEqual(config, documented, "the ports and the certificate were swapped in");
      await Deno.writeTextFile(join(dir, "haproxy.cfg"), config);
      const proxy = new Deno.Command("haproxy", {
        args: ["-db", "-V", "-f", join(dir, "haproxy.cfg")],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const out = new StreamLines(proxy.stdout);
      const err = new StreamLines(proxy.stderr);
      try {
        // HAProxy says this once it has bound its ports and runs.
        await out.waitFor(/as the polling mechanism/);
        const client = Deno.createHttpClient({ caCerts: [certificate] });
        try {
          const mcp = new Client({ name: "behind-proxy", version: "1.0.0" });
          await mcp.connect(
            new StreamableHTTPClientTransport(new URL(`https://127.0.0.1:${proxyPort}/mcp`), {
              requestInit: { headers: { authorization: `Bearer ${gw.token}` } },
              fetch: (url, init) => fetch(url, { ...init, client }),
            }),
          );
          const { tools } = await mcp.listTools();
          assert.ok(tools.some((tool) => tool.name === "test_simple_text"));
          const result = await mcp.callTool({ name: "test_simple_text", arguments: {} });
          assert.equal(textOf(result), "This is a simple text response for testing.");
          await mcp.close();
        } finally {
          client.close();
        }
        const events = await gw.events();
        assert.deepEqual(events.map((event) => event.type), [
          "session_start",
          "tool_call_request",
          "tool_call_response",
        ]);
        // Headers that never end: the proxy answers 408 at its timeout (10 s) and closes.
        const slow = await Deno.connectTls({
          hostname: "127.0.0.1",
          port: proxyPort,
          caCerts: [certificate],
        });
        try {
          await slow.write(
            new TextEncoder().encode("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "),
          );
          const buffer = new Uint8Array(1024);
          const n = await slow.read(buffer);
          assert.match(new TextDecoder().decode(buffer.subarray(0, n ?? 0)), /^HTTP\/1\.[01] 408/);
        } finally {
          slow.close();
        }
      } finally {
        proxy.kill("SIGTERM");
        await proxy.status;
        await Promise.all([out.ended, err.ended]);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
