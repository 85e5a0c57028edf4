/**
 * A `spillway serve --inspect FILE` recording, for the inspector's tests: a
 * gateway with two builtin tools and two client sessions (in-process). The
 * session `alpha` calls `big` (50 000 bytes, cut by its 4KB
 * `size_threshold`) and `small` at once (one phase), then `beta` calls
 * `small` (its own phase). Recorded afresh by each test.
 *
 * @module
 */

import { join } from "node:path";
import { parseConfig } from "../src/config/parse_config.ts";
import { Gateway } from "../src/gateway/gateway.ts";
import { Inspection } from "../src/inspector/inspection.ts";
import { InspectionLog } from "../src/inspector/inspection_log.ts";
import type { BuiltinTool } from "../src/service/builtin/builtin_tool.ts";
import { Client, InMemoryTransport } from "../src/service/sdk.ts";

/** Serves the two sessions' calls, writing the inspection records to `file` (`dir` holds the workspace). */
export async function recordServe(dir: string, file: string): Promise<void> {
  const log = new Inspection([await InspectionLog.create(file)]);
  // Both calls of the first session start before either ends: they are one phase.
  let started = 0;
  const both = Promise.withResolvers<void>();
  const tool = (name: string, text: string): BuiltinTool => ({
    name,
    description: name,
    inputSchema: { type: "object", properties: {} },
    async run() {
      if (++started === 2) both.resolve();
      await both.promise;
      return text;
    },
  });
  const clients: Client[] = [];
  let gateway: Gateway | undefined;
  try {
    gateway = await Gateway.start({
      config: parseConfig('[conversation.tools.big]\nsize_threshold = "4KB"\n'),
      workspace: join(dir, "ws"),
      cwd: dir,
      tools: [tool("big", "b".repeat(50_000)), tool("small", "ok")],
      noticeSink: { notice: () => {} },
      upstreamStderr: "null",
      inspect: (session) => log.observer(session),
    });
    const connect = async (session: string) => {
      const [server, client] = InMemoryTransport.createLinkedPair();
      await gateway?.connect(server, { id: session });
      const sdk = new Client({ name: "inspect-test", version: "1.0.0" });
      await sdk.connect(client);
      clients.push(sdk);
      return sdk;
    };
    const alpha = await connect("alpha");
    await Promise.all([
      alpha.callTool({ name: "big", arguments: {} }),
      alpha.callTool({ name: "small", arguments: {} }),
    ]);
    const beta = await connect("beta");
    await beta.callTool({ name: "small", arguments: {} });
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    await gateway?.close();
    await log.close();
  }
}
