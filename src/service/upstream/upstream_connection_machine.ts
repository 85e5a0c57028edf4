/**
 * The `upstreamConnection` machine: the life of spillway's connection to one
 * upstream MCP server, one actor per connection.
 *
 * `idle` until something needs the server; `starting` opens a link (spawns
 * the server, or reaches its endpoint) and runs the `initialize` handshake
 * and the first `tools/list`, together under the start-up timeout; `ready`
 * serves calls, and lists the tools again when the server says they changed
 * (`relisting`, under the same timeout); when the server exits or stops
 * answering, `lost`; `restarting` waits out the back-off, then starts again.
 * A start that fails is `stopping` first (the server is stopped before
 * anyone hears why), then reported, and the connection is `idle` again, or
 * `restarting` when it restarts in the background. `closing` stops the
 * server; `closed` is final.
 *
 * Which MCP revision a link speaks is its handshake's business
 * (`UpstreamLink.initialize`); a failed start forgets what `auto` found out
 * (`ProtocolVerdict`), so that the next start asks the server again.
 *
 * When it starts again is its `restart` policy (`RestartPolicy`):
 * on `demand` (today's behaviour: a failed start fails whoever waited, the
 * next call tries again, and a lost server is started again by the next
 * call, which says so once), or in the `background`: a failed start is
 * reported to whoever waited, the connection keeps trying after a growing
 * back-off (a call that comes meanwhile gets the last failure at once), and
 * once the server answers its tools are listed and `tools.changed` says so.
 *
 * Its deadlines are XState delays (`startupTimeout`, `restartBackoff`) on
 * the actor's clock: `createActor(machine, { clock })` with a simulated
 * clock runs them without waiting.
 *
 * @module
 */

import { assign, emit, fromPromise, setup } from "xstate";
import type { SpillwayError } from "../../errors/spillway_error.ts";
import type { ToolDefinition } from "../tool_source.ts";
import {
  logRelistFailure,
  logStartFailure,
  restartWarning,
  type StartFailure,
  startFailureError,
  type StartStep,
} from "./_start_failure.ts";
import { restartBackoffMs } from "./restart_policy.ts";
import type {
  UpstreamConnectionEmitted,
  UpstreamConnectionEvent,
  UpstreamConnectionInput,
} from "./upstream_connection_events.ts";
import { UpstreamLink } from "./upstream_link.ts";

interface ConnectionContext {
  readonly input: UpstreamConnectionInput;
  /** The link of the current (or last) life. */
  readonly link: UpstreamLink | undefined;
  readonly tools: readonly ToolDefinition[];
  readonly names: ReadonlySet<string>;
  /** The step of the start in progress. */
  readonly step: StartStep;
  /** Why the start in progress failed, once it did. */
  readonly failure: StartFailure | undefined;
  /** The last failed start, as reported. */
  readonly lastFailure: { readonly error: SpillwayError; readonly why: string } | undefined;
  /** Failed starts since the server last answered. */
  readonly failedStarts: number;
  /** Whether `close` was asked for. */
  readonly closing: boolean;
}

function currentLink(context: ConnectionContext): UpstreamLink {
  if (context.link === undefined) throw new TypeError(`${context.input.name} has no link`);
  return context.link;
}

const connectionSetup = setup({
  types: {
    input: {} as UpstreamConnectionInput,
    context: {} as ConnectionContext,
    events: {} as UpstreamConnectionEvent,
    emitted: {} as UpstreamConnectionEmitted,
  },
  actors: {
    /** The `initialize` handshake (raced by the start-up timeout, never cancelled). */
    initialize: fromPromise<void, UpstreamLink>(({ input }) => input.initialize()),
    /** Every page of `tools/list`; cancelled when the state is left. */
    listTools: fromPromise<ToolDefinition[], UpstreamLink>(
      ({ input, signal }) => input.listTools(signal),
    ),
    /** Stops the server of a start that failed. */
    stopLink: fromPromise<void, UpstreamLink>(({ input }) => input.stop()),
    /** Closes the client and stops the server. */
    closeLink: fromPromise<void, UpstreamLink>(({ input }) => input.close()),
  },
  delays: {
    startupTimeout: ({ context }) => context.input.startupTimeoutMs,
    restartBackoff: ({ context }) => restartBackoffMs(context.input.restart, context.failedStarts),
  },
  guards: {
    isClosing: ({ context }) => context.closing,
    restartsInBackground: ({ context }) => context.input.restart.when === "background",
    restartsAtOnce: ({ context }) =>
      restartBackoffMs(context.input.restart, context.failedStarts) === 0,
    failedBefore: ({ context }) => context.failedStarts > 0,
  },
  actions: {
    openLink: assign({
      link: ({ context, self }) =>
        new UpstreamLink(context.input.name, context.input.server, {
          relays: context.input.relays,
          protocol: {
            protocol: context.input.protocol,
            verdict: context.input.verdict,
            startupTimeoutMs: context.input.startupTimeoutMs,
          },
          events: {
            gone: () => self.send({ type: "server.gone" }),
            toolsChanged: () => self.send({ type: "tools.changed" }),
            catalogChanged: (kind) => self.send({ type: "catalog.changed", kind }),
            resourceUpdated: (uri) => self.send({ type: "resource.updated", uri }),
          },
        }),
      failure: undefined,
    }),
    beginStep: assign((_, params: { step: StartStep }) => ({ step: params.step })),
    storeTools: assign((_, tools: readonly ToolDefinition[]) => ({
      tools,
      names: new Set(tools.map((tool) => tool.name)),
    })),
    noteStartError: assign(({ context }, params: { readonly cause: unknown }) => ({
      failure: { step: context.step, cause: params.cause, expired: false },
    })),
    noteStartTimedOut: assign(({ context }) => ({
      failure: { step: context.step, expired: true },
    })),
    noteClosing: assign(({ context }) => ({
      closing: true,
      failure: context.failure ?? { step: context.step, expired: false },
    })),
    settleStartFailure: assign(({ context }) => ({
      lastFailure: startFailureError(
        context.failure ?? { step: context.step, expired: false },
        {
          name: context.input.name,
          server: context.input.server,
          link: currentLink(context),
          startupTimeoutMs: context.input.startupTimeoutMs,
          closing: context.closing,
          protocol: context.input.protocol,
        },
      ),
      failedStarts: context.failedStarts + 1,
    })),
    /** The server may have changed (been upgraded, downgraded): the next start probes again. */
    forgetVerdict: ({ context }) => context.input.verdict.forget(),
    logStartFailure: ({ context }) => {
      logStartFailure(context.input.name, context.lastFailure?.why ?? "", context.closing);
    },
    tellStartFailed: emit(({ context }): UpstreamConnectionEmitted => ({
      type: "connection.failed",
      error: context.lastFailure?.error as SpillwayError,
    })),
    resetFailedStarts: assign({ failedStarts: 0 }),
    announceReady: emit(({ context }): UpstreamConnectionEmitted => ({
      type: "connection.ready",
      live: { link: currentLink(context), tools: context.tools, names: context.names },
    })),
    tellToolsChanged: emit({ type: "tools.changed" }),
    reportRelistFailure: ({ context }, params: { readonly cause: unknown }) => {
      logRelistFailure(context.input.name, params.cause);
    },
    reportRelistTimeout: ({ context }) => {
      const { name, startupTimeoutMs } = context.input;
      logRelistFailure(name, new Error(`deadline of ${startupTimeoutMs} ms passed`));
    },
    warnRestart: ({ context }) => {
      context.input.warn(restartWarning(currentLink(context), context.input.server));
    },
    tellCatalogChanged: emit((_, kind: "prompts" | "resources"): UpstreamConnectionEmitted => ({
      type: "catalog.changed",
      kind,
    })),
    tellResourceUpdated: emit((_, uri: string): UpstreamConnectionEmitted => ({
      type: "resource.updated",
      uri,
    })),
  },
});

const machine = connectionSetup.createMachine({
  id: "upstreamConnection",
  initial: "idle",
  context: ({ input }) => ({
    input,
    link: undefined,
    tools: [],
    names: new Set(),
    step: "initialize",
    failure: undefined,
    lastFailure: undefined,
    failedStarts: 0,
    closing: false,
  }),
  on: {
    "catalog.changed": {
      actions: { type: "tellCatalogChanged", params: ({ event }) => event.kind },
    },
    "resource.updated": {
      actions: { type: "tellResourceUpdated", params: ({ event }) => event.uri },
    },
  },
  states: {
    idle: {
      on: { connect: "starting", close: "closed" },
    },
    starting: {
      entry: "openLink",
      initial: "initializing",
      after: { startupTimeout: { target: "stopping", actions: "noteStartTimedOut" } },
      on: { close: { target: "stopping", actions: "noteClosing" } },
      states: {
        initializing: {
          entry: { type: "beginStep", params: { step: "initialize" } },
          invoke: {
            id: "initialize",
            src: "initialize",
            input: ({ context }) => currentLink(context),
            onDone: "listing",
            onError: {
              target: "#upstreamConnection.stopping",
              actions: { type: "noteStartError", params: ({ event }) => ({ cause: event.error }) },
            },
          },
        },
        listing: {
          entry: { type: "beginStep", params: { step: "tools/list" } },
          invoke: {
            id: "listTools",
            src: "listTools",
            input: ({ context }) => currentLink(context),
            onDone: [
              {
                guard: "restartsInBackground",
                target: "#upstreamConnection.ready",
                actions: [
                  { type: "storeTools", params: ({ event }) => event.output },
                  "tellToolsChanged",
                ],
              },
              {
                target: "#upstreamConnection.ready",
                actions: { type: "storeTools", params: ({ event }) => event.output },
              },
            ],
            onError: {
              target: "#upstreamConnection.stopping",
              actions: { type: "noteStartError", params: ({ event }) => ({ cause: event.error }) },
            },
          },
        },
      },
    },
    stopping: {
      // Whoever waited hears why once the server is stopped.
      exit: ["settleStartFailure", "forgetVerdict", "logStartFailure", "tellStartFailed"],
      invoke: {
        id: "stopLink",
        src: "stopLink",
        input: ({ context }) => currentLink(context),
        onDone: [
          { guard: "isClosing", target: "closed" },
          { guard: "restartsInBackground", target: "restarting" },
          { target: "idle" },
        ],
      },
      on: { close: { actions: "noteClosing" } },
    },
    ready: {
      entry: ["resetFailedStarts", "announceReady"],
      initial: "serving",
      on: { "server.gone": "lost", close: "closing" },
      states: {
        serving: {
          on: { "tools.changed": "relisting" },
        },
        relisting: {
          after: { startupTimeout: { target: "serving", actions: "reportRelistTimeout" } },
          on: { "tools.changed": { target: "relisting", reenter: true } },
          invoke: {
            id: "listTools",
            src: "listTools",
            input: ({ context }) => currentLink(context),
            onDone: {
              target: "serving",
              actions: [
                { type: "storeTools", params: ({ event }) => event.output },
                "tellToolsChanged",
              ],
            },
            onError: {
              target: "serving",
              actions: {
                type: "reportRelistFailure",
                params: ({ event }) => ({ cause: event.error }),
              },
            },
          },
        },
      },
    },
    lost: {
      always: { guard: "restartsInBackground", target: "restarting", actions: "warnRestart" },
      on: { connect: { target: "restarting", actions: "warnRestart" }, close: "closed" },
    },
    restarting: {
      always: { guard: "restartsAtOnce", target: "starting" },
      after: { restartBackoff: "starting" },
      on: {
        // A call that comes while the connection waits gets the last failure at once.
        connect: { guard: "failedBefore", target: "restarting", actions: "tellStartFailed" },
        close: "closed",
      },
    },
    closing: {
      invoke: {
        id: "closeLink",
        src: "closeLink",
        input: ({ context }) => currentLink(context),
        onDone: "closed",
        onError: "closed",
      },
    },
    closed: { type: "final" },
  },
});

/** The type of {@linkcode upstreamConnectionMachine}. */
export type UpstreamConnectionMachine = typeof machine;

/**
 * The `upstreamConnection` machine (states `idle` → `starting` → `ready` →
 * `lost` → `restarting`, and `stopping`, `closing`, `closed`). One actor
 * per connection; {@linkcode UpstreamConnection} runs it.
 */
export const upstreamConnectionMachine: UpstreamConnectionMachine = machine;
