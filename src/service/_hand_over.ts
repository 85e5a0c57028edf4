/**
 * How the caller of an acknowledged call gets its result: what the Host
 * decided (`deliveryFor`), once the call's spool file, if it has one, is
 * removed. That file held the whole of an output too large to hold only for
 * the Host (caps, the edit prompt, the terminal, which moves it away to keep
 * it); stored outputs (`spill`) are never removed here.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { Acknowledgement } from "./executor.ts";
import type { ParkedCall } from "./parked_call.ts";
import type { CallToolResult } from "./sdk.ts";
import { deliveryFor, type SourceCallEnd } from "./source_call.ts";
import * as files from "../platform/files.ts";
import { isNotFound } from "../platform/file_errors.ts";

/** The caller's side of a call: settles its `tools/call` request. */
export interface CallerSide {
  /** Settles the request with what the caller receives. */
  readonly deliver: (result: CallToolResult | Promise<CallToolResult>) => void;
  /** Fails the request (its result could not be built). */
  readonly fail: (error: unknown) => void;
  /** The client session the call came from (`spillway serve`), if any. */
  readonly session: string | undefined;
  /** The connection's executor channel, told when the call parks; absent when it speaks none. */
  readonly channel: ParkChannel | undefined;
}

/** The service's end of one connection's executor channel (`executor_channel.ts`). */
export interface ParkChannel {
  /** Tells the connection's executor that its call parked, and how it ended. */
  parked(call: ParkedCall): void;
}

/**
 * Settles `caller`'s request with what `ack` decided for a call that ended
 * as `end`, and calls `done` once it did (after the spool file is removed,
 * for a call that has one).
 */
export function handOver(
  caller: CallerSide,
  end: SourceCallEnd,
  ack: Acknowledgement,
  { log, done }: { readonly log: Logger; readonly done: () => void },
): void {
  const spooled = spoolFileOf(end);
  if (spooled === undefined) {
    try {
      caller.deliver(deliveryFor(end, ack));
    } catch (error) {
      caller.fail(error);
    } finally {
      done();
    }
    return;
  }
  caller.deliver(removeSpoolFile(spooled, log).then(() => deliveryFor(end, ack)).finally(done));
}

/** The spool file holding the whole output of an executed call, if it has one. */
function spoolFileOf(end: SourceCallEnd): string | undefined {
  if (end.outcome.kind !== "executed") return undefined;
  const window = end.outcome.response.window;
  return window?.temporary === true ? window.path : undefined;
}

async function removeSpoolFile(path: string, log: Logger): Promise<void> {
  try {
    await files.remove(path);
  } catch (error) {
    if (!isNotFound(error)) {
      log.warn("could not remove the spooled output {path}: {error}", { path, error });
    }
  }
}
