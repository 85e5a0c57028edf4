/**
 * The MCP server of one connection to the execution service: a plain SDK
 * `Server` answering `tools/list` from the tool table (and telling its
 * client when the table changed) and `tools/call` through the call
 * pipeline, serving stored outputs as resources when some tool spills, and
 * speaking the executor channel (`executor_channel.ts`) with a client that
 * declares it. The SDK binds a server to one transport, so the service
 * makes one per connection; they share the table, the pipeline and the lot.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import type { BlobStore } from "../blobs/blob_store.ts";
import type { ParkChannel } from "./_hand_over.ts";
import { serveBlobResources } from "./blob_resources.ts";
import type { CallPipeline } from "./call_pipeline.ts";
import {
  AcknowledgeParamsSchema,
  CancelParamsSchema,
  CHANNEL_CAPABILITY,
  CHANNEL_METHODS,
  type ChannelParked,
  ForgetParamsSchema,
  speaksChannel,
} from "./executor_channel.ts";
import type { ParkingLot } from "./parking_lot.ts";
import { Server } from "./sdk.ts";
import type { ToolTable } from "./tool_table.ts";

/** What {@linkcode createServiceServer} serves. */
export interface ServiceServerOptions {
  /** The server identity. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** The tools listed. */
  readonly table: ToolTable;
  /** Runs the calls. */
  readonly pipeline: CallPipeline;
  /** Where the calls park: the executor channel cancels and acknowledges them there. */
  readonly lot: ParkingLot;
  /** The stored outputs served as resources, when some tool spills. Default: none. */
  readonly blobs?: BlobStore | undefined;
}

const log = getLogger(["spillway", "service"]);

/** A new server for one connection to the execution service. */
export function createServiceServer(options: ServiceServerOptions): Server {
  const { table, pipeline, lot } = options;
  const server = new Server({ ...options.serverInfo }, {
    capabilities: { tools: { listChanged: true }, ...CHANNEL_CAPABILITY },
  });
  const speaks = () => speaksChannel(server.getClientCapabilities());
  // One channel per connection, not one per call: the lot keeps it with each call. The calls
  // that park in the same tick (a slice of a batch parks together) go as one message: the SDK
  // pays for every message it handles, several schema checks each.
  let parked: ChannelParked[] = [];
  const tellParked = () => {
    const params = { parked };
    parked = [];
    server.notification({ method: CHANNEL_METHODS.parked, params })
      .catch((error) =>
        log.warn("could not tell the executor its calls parked: {error}", { error })
      );
  };
  const channel: ParkChannel = {
    parked: ({ callId, outcome }) => {
      parked.push([callId, outcome]);
      if (parked.length === 1) queueMicrotask(tellParked);
    },
  };
  // Low-level handlers: sources hand us JSON Schemas, not zod shapes.
  server.setRequestHandler("tools/list", () => ({ tools: [...table.tools] }));
  server.setRequestHandler(
    "tools/call",
    (request, ctx) =>
      pipeline.call(
        request,
        speaks() ? { signal: ctx.mcpReq.signal, channel } : { signal: ctx.mcpReq.signal },
      ),
  );
  server.setNotificationHandler(
    CHANNEL_METHODS.cancel,
    { params: CancelParamsSchema },
    (params) => {
      if (speaks()) lot.cancel(params.callId, params.reason, channel);
    },
  );
  server.setNotificationHandler(
    CHANNEL_METHODS.forget,
    { params: ForgetParamsSchema },
    (params) => {
      if (speaks()) lot.withdrawCancel(params.callId, channel);
    },
  );
  server.setNotificationHandler(CHANNEL_METHODS.acknowledge, {
    params: AcknowledgeParamsSchema,
  }, (params) => {
    if (!speaks()) return;
    for (const [callId, ack] of params.acknowledgements) {
      try {
        lot.acknowledge(callId, ack, channel);
      } catch (error) {
        // The service let the call go first (it closed); its caller has its error result.
        log.debug("an acknowledgement of {callId} found nothing to release: {error}", {
          callId,
          error,
        });
      }
    }
  });
  const unsubscribe = table.onChanged(() => {
    server.sendToolListChanged().catch(() => {});
  });
  server.onclose = () => unsubscribe();
  if (options.blobs !== undefined) serveBlobResources(server, options.blobs);
  return server;
}
