/**
 * `--inspect FILE`: the inspection records of a run as JSON lines, one per
 * event, for visualizers, post-mortems, `spillway inspect --serve FILE`
 * and `spillway inspect --replay FILE --to URL`. `spillway serve --inspect
 * FILE` records every client session's actors in one file, each record
 * naming its `session`. A record's `contents` (asked for a WebSocket on
 * loopback) never reach the file.
 *
 * @module
 */

import type { InspectionRecord } from "./inspection_recorder.ts";
import type { InspectionSink } from "./inspection.ts";

/** Writes inspection records to a file as JSON lines; `close()` closes it. */
export class InspectionLog implements InspectionSink {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Creates (or truncates) the log file. */
  static async create(path: string): Promise<InspectionLog> {
    return new InspectionLog(await Deno.open(path, { write: true, create: true, truncate: true }));
  }

  /** Appends one record (without its contents). */
  write(record: InspectionRecord): void {
    const { contents: _contents, ...kept } = record;
    let bytes = this.#encoder.encode(JSON.stringify(kept) + "\n");
    while (bytes.length > 0) bytes = bytes.subarray(this.#file.writeSync(bytes));
  }

  /** Closes the file. */
  close(): void {
    this.#file.close();
  }
}
