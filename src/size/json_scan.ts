/**
 * What a `JsonScanner` found in a text: whether it
 * is one JSON value, and what a cut at the place it marked needs to know
 * about the text after it. A window on an output too large to hold carries
 * one (the json cut reads the head itself and this for the rest).
 *
 * @module
 */

/** What kind of JSON value a text is. */
export type JsonValueKind = "object" | "array" | "string" | "number" | "boolean" | "null";

/** A container open at the mark. */
export interface MarkedContainer {
  /** Whether it is an object or an array. */
  readonly kind: "object" | "array";
  /** Its members or elements begun before the mark (one being cut counts). */
  readonly before: number;
  /** How many it has in all; absent while it was still open at the end of the text scanned. */
  readonly total?: number;
}

/** A string value (not a key) open at the mark. */
export interface MarkedString {
  /** UTF-8 bytes from the mark up to its closing quote (or to the end of the text scanned). */
  readonly rest: number;
  /** Whether its closing quote was scanned. */
  readonly closed: boolean;
}

/** What a scan found. */
export interface JsonScan {
  /** The kind of the one JSON value the text is; absent when it is not one. */
  readonly value?: JsonValueKind;
  /** Where the mark is, in UTF-16 units from the start; -1 when there is none. */
  readonly markAt: number;
  /** The containers open at the mark, outermost first. */
  readonly open: readonly MarkedContainer[];
  /** The string value open at the mark, if the mark is inside one. */
  readonly string?: MarkedString;
}
