/**
 * Headless Chromium for the tests that need a real browser (the inspector
 * page, the gateway called from a page on another origin): Debian's
 * `chromium`, which `.ci/run` installs, driven by `playwright-core`. On a
 * machine without it such a test is ignored, its name saying why and what
 * to install; under `SPILLWAY_REQUIRE_CHROMIUM=1` (set by `.ci/run`) a
 * missing Chromium fails the test instead: CI never passes a page untested.
 *
 * @module
 */

import type { Browser } from "playwright-core";

const CHROMIUM = Deno.env.get("SPILLWAY_CHROMIUM") ?? "/usr/bin/chromium";
const REQUIRED = Deno.env.get("SPILLWAY_REQUIRE_CHROMIUM") === "1";

/** Why Chromium cannot run here, or `undefined` when it is there. */
async function chromiumMissing(): Promise<string | undefined> {
  const install = "apt-get install -y chromium, or set SPILLWAY_CHROMIUM to another Chromium";
  try {
    const info = await Deno.stat(CHROMIUM);
    if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return undefined;
    return `${CHROMIUM} is not an executable file: ${install}`;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return `no Chromium at ${CHROMIUM}: ${install}`;
  }
}

const noChromium = await chromiumMissing();

/** Whether a browser test is ignored here (no Chromium, and none required). */
export const IGNORE_BROWSER_TESTS: boolean = noChromium !== undefined && !REQUIRED;

/** What a browser test's name adds when it is ignored: `" (ignored: …)"`, else `""`. */
export const BROWSER_IGNORED_NOTE: string = IGNORE_BROWSER_TESTS ? ` (ignored: ${noChromium})` : "";

/** Launches headless Chromium; fails when it is missing (under `SPILLWAY_REQUIRE_CHROMIUM=1`). */
export async function launchChromium(): Promise<Browser> {
  if (noChromium !== undefined) throw new Error(`${noChromium} (SPILLWAY_REQUIRE_CHROMIUM=1)`);
  // playwright-core probes /proc/sys/fs/binfmt_misc at load (is this WSL?), a path Deno lets
  // only --allow-all read, and throws where Node would answer false. The probe is skipped when
  // __IS_WSL_TEST__ is set; its answer only serves opening files in desktop apps, never done here.
  Deno.env.set("__IS_WSL_TEST__", "1");
  const { chromium } = await import("playwright-core");
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
