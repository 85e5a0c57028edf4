/**
 * Which runtime this is. The platform seam asks once, at load: Deno's own
 * namespace when running on Deno (its `version.deno` set), or undefined
 * on Node. A `Deno` global that some other code defined on Node (a test
 * shim) has no such version and does not count.
 *
 * @module
 */

/** Deno's namespace when this is Deno, else undefined. */
export const DENO: typeof Deno | undefined = (() => {
  const candidate = (globalThis as { Deno?: typeof Deno }).Deno;
  return typeof candidate?.version?.deno === "string" ? candidate : undefined;
})();
