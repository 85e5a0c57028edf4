/**
 * How the person runs spillway, for the commands our hints and usage lines
 * show: `spillway` when the npm package's command started us (it sets
 * `SPILLWAY_PROGRAM`), `deno task spillway` in a checkout.
 *
 * @module
 */

/** The words that run spillway here: `spillway` or `deno task spillway`. */
export function programName(): string {
  let program: string | undefined;
  try {
    program = Deno.env.get("SPILLWAY_PROGRAM");
  } catch {
    // Without permission to read the environment: the checkout's form.
  }
  return program === "spillway" ? "spillway" : "deno task spillway";
}
