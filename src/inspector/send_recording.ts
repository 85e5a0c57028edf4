/**
 * `spillway inspect --replay FILE --to URL`: a recorded run (`--inspect
 * FILE`) sent to a WebSocket as Stately's inspection protocol, the same
 * messages `--inspect-ws URL` sent while it ran (times as recorded). A
 * recording made before records carried session ids cannot be sent: that is
 * said before anything is.
 *
 * @module
 */

import type { InspectionRecord } from "./inspection_recorder.ts";
import { InspectionSocket } from "./inspection_socket.ts";
import { StatelyMessages } from "./stately_messages.ts";

/** What {@linkcode sendRecording} did. */
export interface SentRecording {
  /** Protocol messages sent. */
  readonly sent: number;
  /** Lines of the file that were not records. */
  readonly unreadable: number;
}

/**
 * Sends the records of the inspection file at `path` to `url`.
 *
 * @throws {TypeError} when the file was recorded by an older spillway (no session ids)
 * @throws {Error} when the file cannot be read or `url` does not answer
 */
export async function sendRecording(path: string, url: URL): Promise<SentRecording> {
  const records: InspectionRecord[] = [];
  let unreadable = 0;
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    if (line.trim() === "") continue;
    try {
      const record = JSON.parse(line);
      if (typeof record?.type !== "string" || typeof record?.actor !== "string") throw line;
      records.push(record);
    } catch {
      unreadable += 1;
    }
  }
  // Every record is checked before the first is sent: an old file sends nothing.
  const check = new StatelyMessages();
  for (const record of records) check.of(record);
  const socket = await InspectionSocket.connect(url);
  try {
    for (const record of records) socket.write(record);
  } finally {
    await socket.close();
  }
  return { sent: socket.sent, unreadable };
}
