/**
 * The inspection flags of the commands that run the machines (`query`,
 * `serve`): `--inspect FILE` writes the records, `--inspect-ws URL` sends
 * them as Stately's inspection protocol, `--inspect-contents` lets the
 * events' contents (arguments, results) go to a loopback WebSocket instead
 * of their sizes and digests. Read and checked before anything starts, so a
 * wrong address leaves nothing running.
 *
 * @module
 */

import { resolve } from "node:path";
import { reasonText } from "../errors/reason_text.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { Inspection, type InspectionSink } from "../inspector/inspection.ts";
import { InspectionLog } from "../inspector/inspection_log.ts";
import { InspectionSocket, inspectSocketUrl } from "../inspector/inspection_socket.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import type { CommandIo } from "./command_io.ts";
import type { FlagSpec, ParsedFlags } from "./_flags.ts";

/** `--inspect FILE`, `--inspect-ws URL`, `--inspect-contents`. */
export const INSPECT_FLAGS: readonly FlagSpec[] = [
  {
    name: "inspect",
    kind: "string",
    valueName: "FILE",
    help: "write the machines' XState inspection events to FILE as JSON lines " +
      "(spillway inspect --serve FILE shows them)",
  },
  {
    name: "inspect-ws",
    kind: "string",
    valueName: "URL",
    help: "send the inspection events to the WebSocket at URL as Stately's inspection " +
      "protocol (@statelyai/inspect); arguments and results go as sizes and digests",
  },
  {
    name: "inspect-contents",
    kind: "boolean",
    help: "with --inspect-ws to a loopback address: send arguments and results themselves",
  },
];

/** What the inspection flags asked for. */
export interface InspectionRequest {
  readonly file: string | undefined;
  readonly socket: URL | undefined;
  readonly contents: boolean;
}

/**
 * The inspection flags, checked.
 *
 * @throws {SpillwayError} `usage` for an address that is no WebSocket, or contents asked for off this machine
 */
export function inspectionRequest(flags: ParsedFlags): InspectionRequest {
  const given = flags.string("inspect-ws");
  const contents = flags.boolean("inspect-contents");
  if (contents && given === undefined) {
    throw new SpillwayError("usage", "--inspect-contents goes with --inspect-ws URL");
  }
  let socket: URL | undefined;
  try {
    socket = given === undefined ? undefined : inspectSocketUrl(given, contents);
  } catch (error) {
    throw new SpillwayError("usage", `--inspect-ws: ${shown(reasonText(error))}`);
  }
  return { file: flags.string("inspect"), socket, contents };
}

/**
 * Opens what `request` names (the file created or truncated, relative to
 * the working directory; the socket connected); `undefined` when it names
 * nothing.
 *
 * @throws {SpillwayError} `usage` when the file cannot be written or the socket does not answer
 */
export async function openInspection(
  request: InspectionRequest,
  io: CommandIo,
): Promise<Inspection | undefined> {
  const sinks: InspectionSink[] = [];
  if (request.file !== undefined) {
    try {
      sinks.push(await InspectionLog.create(resolve(io.cwd, request.file)));
    } catch (error) {
      throw new SpillwayError(
        "usage",
        `--inspect "${shown(request.file)}" cannot be written: ` +
          `${reasonText(error)} (give a file in a directory that exists and you can write to)`,
      );
    }
  }
  if (request.socket !== undefined) {
    try {
      sinks.push(
        await InspectionSocket.connect(request.socket, {
          onLost: (message) => io.stderr(`spillway: --inspect-ws: ${shown(message)}\n`),
        }),
      );
    } catch (error) {
      await Promise.allSettled(sinks.map((sink) => sink.close()));
      throw new SpillwayError("usage", `--inspect-ws: ${shown(reasonText(error))}`);
    }
  }
  return sinks.length === 0 ? undefined : new Inspection(sinks, { contents: request.contents });
}

function shown(value: string): string {
  return sanitizeForTerminal(value, { singleLine: true });
}
