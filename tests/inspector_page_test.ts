/**
 * The inspector page in a real browser: headless Chromium (Debian's
 * `chromium`, which `.ci/run` installs) driven by `playwright-core`, on a
 * run recorded afresh (two cut responses, one call asked about, one unknown
 * tool). On a machine without Chromium the test is ignored, its name saying
 * why and what to install; `.ci/run` installs Chromium and sets
 * `SPILLWAY_REQUIRE_CHROMIUM=1`, under which a missing Chromium fails the
 * test instead: CI never passes with the page untested.
 *
 * `SPILLWAY_SCREENSHOT=docs/inspector.png deno test -A tests/inspector_page_test.ts`
 * also saves the picture the docs show.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { BROWSER_IGNORED_NOTE, IGNORE_BROWSER_TESTS, launchChromium } from "./_chromium.ts";
import { InspectionReplay } from "../src/inspector/inspection_replay.ts";
import { serveInspector } from "../src/inspector/inspector_server.ts";
import { upstreamConnectionMachine } from "../src/service/upstream/upstream_connection_machine.ts";
import { SPILLWAY_MACHINES } from "../src/inspector/machines_markdown.ts";
import { recordRun } from "./_recorded_run.ts";
import { recordServe } from "./_recorded_serve.ts";

/** The step of the replay whose `said` starts with `prefix`. */
function stepWhere(replay: InspectionReplay, prefix: string): number {
  for (let step = 1; step <= replay.steps; step++) {
    if (replay.viewAt(step).said.startsWith(prefix)) return step;
  }
  throw new Error(`no step says "${prefix}…"`);
}

async function goToStep(page: Page, step: number): Promise<void> {
  // The page's own slider, moved as a person would drag it (no DOM types here: plain shapes).
  await page.$eval("#slider", (slider, value) => {
    (slider as unknown as { value: string }).value = String(value);
    slider.dispatchEvent(new Event("input"));
  }, step);
  await page.waitForSelector(`body[data-step="${step}"]`);
}

/** The Mermaid state ids lit in a diagram: `[current, ...lit]`. */
function litIn(page: Page, diagram: string, svgId: string): Promise<string[]> {
  return page.$eval(diagram, (element, svgId) => {
    const idOf = (node: { id: string; getAttribute(name: string): string | null }) =>
      node.getAttribute("data-id") ?? node.id.replace(`${svgId}-state-`, "").replace(/-\d+$/, "");
    return [
      ...[...element.querySelectorAll(".current")].map(idOf),
      ...[...element.querySelectorAll(".lit")].map(idOf).sort(),
    ];
  }, svgId);
}

/** The top-level states drawn in a diagram, by Mermaid id, sorted. */
function statesDrawn(page: Page, diagram: string, svgId: string): Promise<string[]> {
  return page.$eval(diagram, (element, svgId) => {
    const ids = new Set<string>();
    for (const node of element.querySelectorAll(`[id^="${svgId}-state-"]`)) {
      const id = node.id.replace(`${svgId}-state-`, "").replace(/-\d+$/, "");
      if (!id.includes("_") && !id.startsWith("root")) ids.add(id);
    }
    for (const cluster of element.querySelectorAll("g.statediagram-cluster[data-id]")) {
      const id = cluster.getAttribute("data-id") ?? "";
      if (!id.includes("_")) ids.add(id);
    }
    return [...ids].sort();
  }, svgId);
}

function texts(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (nodes) => nodes.map((node) => node.textContent?.trim() ?? ""));
}

Deno.test({
  name: `the inspector page, in headless Chromium${BROWSER_IGNORED_NOTE}`,
  ignore: IGNORE_BROWSER_TESTS,
  async fn(t) {
    const browser = await launchChromium();
    try {
      await t.step("replays a recorded run with two cut responses", () => replays(browser));
      await t.step("follows a run while its file grows", () => follows(browser));
      await t.step("shows a serve recording: each session's phases", () => serves(browser));
    } finally {
      await browser.close();
    }
  },
});

async function replays(browser: Browser): Promise<void> {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "inspect.jsonl");
  const run = await recordRun(file);
  const replay = new InspectionReplay();
  for (const line of (await Deno.readTextFile(file)).split("\n")) replay.addLine(line);
  const server = serveInspector({ file, port: 0 });
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  try {
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    // Offline: anything the page asks of another host is a defect.
    await page.route((url) => url.host !== new URL(server.url).host, (route) => {
      problems.push(`asked the network for ${route.request().url()}`);
      return route.abort();
    });
    await page.goto(server.url);
    await page.waitForSelector("body[data-ready=true]");
    // The upstream connection's machine is drawn from its definition beside the turn's.
    assert.deepEqual(
      await statesDrawn(page, "#connection-diagram", "diagram-upstreamConnection"),
      Object.keys(upstreamConnectionMachine.root.states).sort(),
    );

    // The last step: the turn finished, every call released, both cuts shown.
    assert.equal(await page.textContent("#status"), "turn finished");
    assert.equal(await page.textContent("#step"), `${replay.steps} / ${replay.steps}`);
    const rows = await page.$$eval(
      "#calls tbody tr",
      (trs) =>
        trs.map((tr) =>
          Array.from(
            tr.querySelectorAll("td"),
            (td) => (td as { textContent: string | null }).textContent?.trim().replace(/\s+/g, " "),
          )
        ),
    );
    assert.deepEqual(rows, [
      ["1", "call_1", "fs_list_files", "released", "26 B", "26 B", "26 B"],
      [
        "2",
        "call_2",
        "noisy_test_run",
        "released",
        "2.0 MB",
        "256.0 KB cut by size_threshold",
        "256.0 KB",
      ],
      ["3", "call_3", "big_report", "released", "5.0 MB", "5.0 MB", "1.7 MB cut by batch ceiling"],
      ["4", "call_4", "deploy_preview", "released", "39 B", "39 B", "39 B"],
      rows[4] as string[],
    ]);
    assert.deepEqual(rows[4]?.slice(0, 4), ["5", "call_5", "wiki_search", "released"]);
    assert.deepEqual(await texts(page, "#notices li"), run.notices);
    assert.equal(await page.textContent("#budget-said"), "2.0 MB of the 2.0 MB ceiling spent");
    assert.equal(await page.locator("#budget-bar .part").count(), 5);
    assert.deepEqual(await litIn(page, "#turn-diagram", "diagram-turn"), ["finished"]);

    // Mid-commit: the commit's state lit inside the phase, inside the turn.
    await goToStep(page, stepWhere(replay, "commit → releasing"));
    assert.equal(await page.textContent("#status"), "turn running");
    assert.deepEqual(await litIn(page, "#turn-diagram", "diagram-turn"), [
      "toolPhase_committing_releasing",
      "toolPhase",
      "toolPhase_committing",
    ]);
    assert.deepEqual(await texts(page, "#calls tbody td:nth-child(4)"), [
      "barrierAcknowledge",
      "barrierAcknowledge",
      "barrierAcknowledge",
      "barrierAcknowledge",
      "barrierAcknowledge",
    ]);

    // The asked-about call, picked, while its result is being asked about.
    await goToStep(page, stepWhere(replay, "call_4 (asked about) → resultPrompt.prompting"));
    await page.click('#calls tr[data-call="call_4"]');
    assert.equal(
      await page.textContent("#call-said"),
      "call_4 · deploy_preview · resultPrompt.prompting",
    );
    assert.deepEqual(await litIn(page, "#call-diagram", "diagram-toolCall"), [
      "resultPrompt_prompting",
      "resultPrompt",
    ]);

    // The picture in the docs: the commit spent the budget, both notices out.
    await goToStep(page, stepWhere(replay, "commit: 5 responses recorded"));
    await page.click('#calls tr[data-call="call_3"]');
    const screenshot = Deno.env.get("SPILLWAY_SCREENSHOT");
    if (screenshot !== undefined) await page.screenshot({ path: screenshot });

    // Every machine is listed by name, and drawn when picked: the session's states, the parked call's.
    assert.deepEqual(await texts(page, "#machine-tabs .tab"), Object.keys(SPILLWAY_MACHINES));
    for (
      const [name, state] of [["session", "open_calls_gathering"], ["parkedCall", "acknowledged"]]
    ) {
      await page.click(`#machine-tabs .tab[data-machine="${name}"]`);
      await page.waitForSelector(`#machine-diagram svg#diagram-machine-${name}`);
      assert.equal(await page.textContent("#machine-tabs .tab.shown"), name);
      const drawn = await page.$$eval(
        "#machine-diagram g.node",
        (nodes) => nodes.map((node) => node.getAttribute("data-id") ?? node.id),
      );
      assert.ok(drawn.some((id) => id.includes(state)), `${name}: ${drawn.join(", ")}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

async function follows(browser: Browser): Promise<void> {
  const dir = await Deno.makeTempDir();
  const recorded = join(dir, "recorded.jsonl");
  await recordRun(recorded);
  const lines = (await Deno.readTextFile(recorded)).split("\n");
  const half = lines.findIndex((line) => line.includes('"state":"toolPhase"'));
  const file = join(dir, "live.jsonl");
  await Deno.writeTextFile(file, lines.slice(0, half + 1).join("\n") + "\n");
  const server = serveInspector({ file, port: 0 });
  const page = await browser.newPage();
  try {
    await page.goto(server.url);
    await page.waitForSelector("body[data-ready=true]");
    assert.equal(await page.textContent("#status"), "turn running");
    assert.match((await page.textContent("#source")) ?? "", /live\.jsonl · following$/);
    await Deno.writeTextFile(file, lines.slice(half + 1).join("\n"), { append: true });
    // The server tells the page the file grew (server-sent events): wait for what it shows.
    await page.waitForSelector('#status:text-is("turn finished")');
    assert.deepEqual(await litIn(page, "#turn-diagram", "diagram-turn"), ["finished"]);
  } finally {
    await page.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

async function serves(browser: Browser): Promise<void> {
  const dir = await Deno.makeTempDir();
  const file = join(dir, "serve.jsonl");
  const server = serveInspector({ file, port: 0 });
  const page = await browser.newPage();
  try {
    await recordServe(dir, file);
    const replay = new InspectionReplay();
    for (const line of (await Deno.readTextFile(file)).split("\n")) replay.addLine(line);
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    await page.goto(server.url);
    await page.waitForSelector("body[data-ready=true]").catch((error) => {
      throw new Error(`${error.message}\n${problems.join("\n")}`);
    });
    assert.deepEqual(problems, []);
    assert.equal(await page.textContent("#status"), "between phases · 2 sessions");
    assert.deepEqual(await texts(page, "#batch-tabs .tab"), [
      "phase 1 · session alpha · 2 calls",
      "phase 2 · session beta · 1 call",
    ]);
    await page.click("#batch-tabs .tab >> nth=0");
    assert.deepEqual(await texts(page, "#calls tbody td:nth-child(3)"), ["big", "small"]);
    assert.deepEqual(await texts(page, "#notices li"), [
      "big: sent 4.0 KB of 48.8 KB to the assistant (size_threshold)",
    ]);
    // While alpha's commit releases: lit inside toolPhase, as a turn would run it.
    await goToStep(page, stepWhere(replay, "session alpha: commit → releasing"));
    assert.equal(await page.textContent("#status"), "phase running · 2 sessions");
    assert.deepEqual(await litIn(page, "#turn-diagram", "diagram-turn"), [
      "toolPhase_committing_releasing",
      "toolPhase",
      "toolPhase_committing",
    ]);
  } finally {
    await page.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}
