/**
 * The MCP server of one connection to the execution service: a plain SDK
 * `Server` answering `tools/list` from the tool table and `tools/call`
 * through the call pipeline, and serving stored outputs as resources when
 * some tool spills. The SDK binds a server to one transport, so the service
 * makes one per connection; they share the table, the pipeline and the lot.
 *
 * @module
 */

import type { BlobStore } from "../blobs/blob_store.ts";
import { serveBlobResources } from "./blob_resources.ts";
import type { CallPipeline } from "./call_pipeline.ts";
import { CallToolRequestSchema, ListToolsRequestSchema, Server } from "./sdk.ts";
import type { ToolTable } from "./tool_table.ts";

/** What {@linkcode createServiceServer} serves. */
export interface ServiceServerOptions {
  /** The server identity. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** The tools listed. */
  readonly table: ToolTable;
  /** Runs the calls. */
  readonly pipeline: CallPipeline;
  /** The stored outputs served as resources, when some tool spills. Default: none. */
  readonly blobs?: BlobStore | undefined;
}

/** A new server for one connection to the execution service. */
export function createServiceServer(options: ServiceServerOptions): Server {
  const { table, pipeline } = options;
  const server = new Server({ ...options.serverInfo }, { capabilities: { tools: {} } });
  // Low-level handlers: sources hand us JSON Schemas, not zod shapes.
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...table.tools] }));
  server.setRequestHandler(
    CallToolRequestSchema,
    (request, extra) => pipeline.call(request, { signal: extra.signal }),
  );
  if (options.blobs !== undefined) serveBlobResources(server, options.blobs);
  return server;
}
