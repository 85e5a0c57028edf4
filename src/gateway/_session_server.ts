/**
 * The MCP server one `spillway serve` client talks to: initialize with the
 * gateway's capabilities, ping (the SDK answers it), `logging/setLevel`,
 * `tools/list`, and `tools/call` through the session's host. While a call
 * runs, the client's side of it is relayed: progress on the client's own
 * progress token, log messages at or above the client's level, and the
 * upstream's sampling, elicitation and roots requests (with their answers
 * back): asked of a 2025 client as requests, of a 2026-07-28 client through
 * `input_required` rounds (`input_rounds.ts`). What a call asked is kept
 * for its record (`input_crossings.ts`).
 * While a call is parked, a client that sent a progress token gets a
 * progress notification every so often, so its request does not time out.
 *
 * @module
 */

import type { SessionHost } from "./session_host.ts";
import type { ExecutionService } from "../service/execution_service.ts";
import {
  type CallToolRequest,
  type CallToolResult,
  CreateMessageResultSchema,
  ElicitResultSchema,
  type InputRequiredResult,
  ListRootsResultSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  type ProgressToken,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerCapabilities,
  type ServerContext,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "../service/sdk.ts";
import type { CallerRequest, ToolCallRelay } from "../service/tool_call_relay.ts";
import { toolCallRequest } from "./_tool_call_params.ts";
import { CallCancellation, type CancellationCause } from "../service/call_cancellation.ts";
import { type ClientInfo, type RequestEnvelope, requestEnvelope } from "./_request_envelope.ts";
import type { InputRounds, RunningCall } from "./input_rounds.ts";
import type { InputCrossings } from "./input_crossings.ts";

/** What {@linkcode createSessionServer} needs. */
export interface SessionServerOptions {
  /** The session id (tags the calls in the service). */
  readonly session: string;
  /** The client the session belongs to: its calls run on that principal's upstream connections. */
  readonly client: string;
  /** Where calls run. */
  readonly service: ExecutionService;
  /** The session's Host side. */
  readonly host: SessionHost;
  /** The listed tools (read on every `tools/list`). */
  readonly tools: () => readonly Tool[];
  /** Advertised capabilities. */
  readonly capabilities: ServerCapabilities;
  /** The server identity. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** A new call id. */
  readonly nextCallId: () => string;
  /** How often a parked call with a progress token gets a keep-alive progress notification, in ms. */
  readonly parkProgressIntervalMs: number;
  /**
   * Whether the client's transport has closed: a request aborted then was
   * not cancelled by the client, its session ended under it.
   */
  readonly disconnected: () => boolean;
  /**
   * Ends the HTTP response stream that carried request `requestId` (an SSE
   * POST stream): a call the client cancelled gets no response, so without
   * this its stream would stay open. Absent for stdio.
   */
  readonly closeRequestStream?: (requestId: Extra["mcpReq"]["id"]) => void;
  /**
   * Told what a 2026-07-28 request says of its client (its `clientInfo` and
   * protocol revision), at every `tools/list` and `tools/call`. Default: nobody.
   */
  readonly identify?: (clientInfo: ClientInfo | undefined, protocol: string) => void;
  /**
   * Where a 2026-07-28 call that asks its client for input waits between
   * `input_required` rounds (the gateway's). Absent: such a request is
   * sent as in 2025, which a 2026-07-28 client cannot take.
   */
  readonly rounds?: InputRounds;
  /** Where what the calls asked their client for is kept until recorded. Absent: not recorded. */
  readonly crossings?: InputCrossings;
}

type Extra = ServerContext;

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));

/** The server of one client session. */
export function createSessionServer(options: SessionServerOptions): Server {
  const server = new Server({ ...options.serverInfo }, { capabilities: options.capabilities });
  let level: LoggingLevel | undefined;
  server.setRequestHandler("logging/setLevel", (request) => {
    level = request.params.level;
    return {};
  });
  server.setRequestHandler("tools/list", (_request, ctx) => {
    const envelope = requestEnvelope(ctx);
    if (envelope !== undefined) options.identify?.(envelope.clientInfo, envelope.protocol);
    return { tools: [...options.tools()] };
  });
  // `tools/call` is answered here rather than through `setRequestHandler`,
  // whose check of the params answers -32603 with every zod issue: ours
  // answers -32602 and says in one line what is wrong (`_tool_call_params.ts`).
  server.fallbackRequestHandler = (request, extra) => {
    if (request.method !== "tools/call") {
      return Promise.reject(
        new ProtocolError(ProtocolErrorCode.MethodNotFound, "Method not found"),
      );
    }
    // A retry of a 2026-07-28 call carries its answers (the SDK lifts them off the params).
    const retry = {
      requestState: extra.mcpReq.requestState(),
      inputResponses: extra.mcpReq.inputResponses,
    };
    return callTool(toolCallRequest(request), extra, retry);
  };
  const callTool = (
    request: CallToolRequest,
    extra: Extra,
    retry: { readonly requestState: unknown; readonly inputResponses: unknown },
  ): Promise<CallToolResult | InputRequiredResult> => {
    // A 2026-07-28 request says who sent it and which log messages it wants.
    const envelope = requestEnvelope(extra);
    if (envelope !== undefined) options.identify?.(envelope.clientInfo, envelope.protocol);
    const rounds = options.rounds;
    if (envelope === undefined || rounds === undefined) {
      const ask = (caller: CallerRequest) => callerRequest(server, extra, caller);
      return runCall(request, extra, envelope, "request", ask).done;
    }
    return rounds.handle(
      {
        client: options.client,
        tool: request.params.name,
        capabilities: envelope.capabilities,
        ...(retry.requestState === undefined ? {} : { requestState: retry.requestState }),
        ...(retry.inputResponses === undefined ? {} : { inputResponses: retry.inputResponses }),
      },
      extra,
      (ask, lacking) => runCall(request, extra, envelope, "input_required", ask, lacking),
    );
  };
  /**
   * Runs one call in the session: its client's side relayed to the request
   * it is bound to (the one that made it; for a call continued over
   * `input_required` rounds, the one continuing it now).
   */
  const runCall = (
    request: CallToolRequest,
    first: Extra,
    envelope: RequestEnvelope | undefined,
    via: "request" | "input_required",
    ask: (caller: CallerRequest) => Promise<Readonly<Record<string, unknown>>>,
    lacking?: (capabilities: Readonly<Record<string, unknown>>) => void,
  ): RunningCall => {
    const callId = options.nextCallId();
    let extra: Extra | undefined = first;
    const callLevel = envelope === undefined ? level : envelope.logLevel;
    const progress = new ProgressRelay(request.params._meta?.progressToken, first);
    const relay: ToolCallRelay = {
      caller: options.session,
      // Without a token the client wants no progress: the upstream gets none to send.
      ...(request.params._meta?.progressToken === undefined
        ? {}
        : { progress: (update) => progress.send(update) }),
      // The least severe level it wants, asked of a 2026-07-28 upstream (which sends only that).
      ...(callLevel === undefined ? {} : { logLevel: callLevel }),
      log: (message) => {
        // A 2026-07-28 request without a log level wants none.
        if (envelope !== undefined && callLevel === undefined) return;
        const severity = SEVERITY.get(message.level as LoggingLevel);
        if (
          callLevel !== undefined && severity !== undefined &&
          severity < (SEVERITY.get(callLevel) ?? 0)
        ) {
          return;
        }
        void extra?.mcpReq.notify({
          method: "notifications/message",
          params: { ...message } as ServerNotification["params"] & { level: LoggingLevel },
        } as ServerNotification).catch(() => {});
      },
      // What it can be asked: what its client declared (on this request, or at initialize).
      ...clientCapabilities(envelope?.capabilities ?? server.getClientCapabilities()),
      ...(lacking === undefined ? {} : { lacking }),
      request: async (caller) => {
        const noted = options.crossings?.asked(callId, caller, via);
        try {
          const answer = await ask(caller);
          noted?.(answer);
          return answer;
        } catch (error) {
          noted?.(error instanceof Error ? error : new Error(String(error)));
          throw error;
        }
      },
    };
    let parked = false;
    options.service.whenParked(callId, {
      resolve: () => {
        parked = true;
        progress.keepAlive(options.parkProgressIntervalMs);
      },
      reject: () => {},
    });
    const call = {
      id: callId,
      name: request.params.name,
      arguments: request.params.arguments ?? {},
    };
    // The SDK aborts a request the client cancelled, and every request when
    // the transport closes: which of the two, the recorded response says.
    const cancel = new AbortController();
    const onAbort = () => {
      const signal = extra?.mcpReq.signal;
      cancel.abort(
        new CallCancellation(
          options.disconnected() ? { by: "disconnect" } : clientCancellation(signal?.reason),
        ),
      );
    };
    const bind = (next: Extra | undefined) => {
      extra?.mcpReq.signal.removeEventListener("abort", onAbort);
      extra = next;
      if (next === undefined) return;
      progress.rebind(next);
      next.mcpReq.signal.addEventListener("abort", onAbort, { once: true });
      if (next.mcpReq.signal.aborted) onAbort();
    };
    bind(first);
    let stepAside = () => {};
    const done = options.host.call(
      call,
      () =>
        options.service.callTool(request, {
          signal: cancel.signal,
          callId,
          session: options.session,
          principal: options.client,
          relay,
        }),
      (stepOut) => stepAside = stepOut,
    ).finally(() => {
      const last = extra;
      bind(undefined);
      progress.stop();
      // The client cancelled: MCP sends it no response, and its stream ends here.
      if (last?.mcpReq.signal.aborted && !options.disconnected()) {
        options.closeRequestStream?.(last.mcpReq.id);
      }
      // A call that parked left nothing behind; one that never reached the
      // service may have left a waiter and a pending cancellation.
      if (!parked) {
        options.service.forget(callId);
        options.crossings?.forget(callId);
      }
    });
    return {
      done,
      rebind: bind,
      stepAside: () => stepAside(),
      cancel: (cause) => cancel.abort(new CallCancellation(cause)),
      signal: cancel.signal,
    };
  };
  return server;
}

/** The relay's `capabilities` of a client that declared `declared`. */
function clientCapabilities(
  declared: Readonly<Record<string, unknown>> | undefined,
): { capabilities?: Readonly<Record<string, unknown>> } {
  return declared === undefined ? {} : { capabilities: declared };
}

/** A client's `notifications/cancelled`, with its `reason` when it gave one (a string). */
function clientCancellation(reason: unknown): CancellationCause {
  return typeof reason === "string" && reason !== "" ? { by: "client", reason } : { by: "client" };
}

/** Sends one of the tool's requests to the client, if the client can take it. */
async function callerRequest(
  server: Server,
  extra: Extra,
  caller: CallerRequest,
): Promise<Readonly<Record<string, unknown>>> {
  const capabilities = server.getClientCapabilities();
  if (caller.method === "roots/list") {
    if (capabilities?.roots === undefined) throw new Error("the client does not support roots");
    return await extra.mcpReq.send(
      { method: caller.method, params: caller.params } as ServerRequest,
      ListRootsResultSchema,
    );
  }
  if (caller.method === "sampling/createMessage") {
    if (capabilities?.sampling === undefined) {
      throw new Error("the client does not support sampling");
    }
    return await extra.mcpReq.send(
      { method: caller.method, params: caller.params } as ServerRequest,
      CreateMessageResultSchema,
    );
  }
  if (capabilities?.elicitation === undefined) {
    throw new Error("the client does not support elicitation");
  }
  return await extra.mcpReq.send(
    { method: caller.method, params: caller.params } as ServerRequest,
    ElicitResultSchema,
  );
}

/** Progress on the client's token: relayed updates, then keep-alives while parked. */
class ProgressRelay {
  readonly #token: ProgressToken | undefined;
  #extra: Extra;
  /** The last progress sent, `undefined` before the first. */
  #last: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;

  constructor(token: ProgressToken | undefined, extra: Extra) {
    this.#token = token;
    this.#extra = extra;
  }

  /** Sends on the stream of the request now waiting for the call. */
  rebind(extra: Extra): void {
    this.#extra = extra;
  }

  send(update: { progress: number; total?: number | undefined; message?: string | undefined }) {
    if (this.#token === undefined || this.#stopped) return;
    // Progress must increase; a tool that repeats a value is passed on nudged.
    const last = this.#last;
    const progress = last === undefined || update.progress > last ? update.progress : last + 1;
    this.#last = progress;
    const params: Record<string, unknown> = { progressToken: this.#token, progress };
    if (update.total !== undefined && update.total >= progress) params.total = update.total;
    if (update.message !== undefined) params.message = update.message;
    void this.#extra.mcpReq.notify(
      { method: "notifications/progress", params } as ServerNotification,
    ).catch(() => {});
  }

  keepAlive(intervalMs: number): void {
    if (this.#token === undefined || this.#stopped) return;
    this.#timer = setInterval(() => {
      this.send({
        progress: (this.#last ?? 0) + 1,
        message: "the result is waiting to be recorded (review or sibling calls)",
      });
    }, intervalMs);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}
