/**
 * The JSON texts the json cut is measured on: an array of objects (an API's
 * list of records) and one huge string (a file's content as a JSON string,
 * its newlines and quotes escaped), each of a given size, flattened once.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** The shapes measured. */
export type JsonBenchShape = "objects" | "string";

/** A JSON text of `bytes` UTF-8 bytes (or a record more) of `shape`. */
export function jsonBenchText(shape: JsonBenchShape, bytes: number): string {
  if (shape === "string") {
    const line = 'fn parse(input: &str) -> Result<Value, "Error"> { /* naïve */ }\n';
    const content = line.repeat(Math.ceil(bytes / (line.length + 4)));
    return flat(JSON.stringify(content));
  }
  const records: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const record = JSON.stringify({
      id: i,
      title: `Issue ${i}: the parser drops a ${i % 2 ? "naïve" : "漢字"} name`,
      state: i % 3 ? "open" : "closed",
      labels: ["bug", `p${i % 4}`],
      score: i * 0.25,
      author: { login: `user${i % 97}`, site_admin: false },
    });
    records.push(record);
    size += Buffer.byteLength(record, "utf8") + 1;
  }
  return flat(`[${records.join(",")}]`);
}

/** `text`, flattened (a rope is joined once here, not inside the measurement). */
function flat(text: string): string {
  Buffer.byteLength(text, "utf8");
  return text;
}
