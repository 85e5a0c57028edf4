// The inspector page: draws the turn, toolCall, session and upstreamConnection machines with
// Mermaid (its own bundle, served by spillway), asks the server for the view at a step and shows
// it: the lit states, each call's state and sizes, the batch budget, the notices, the clients and
// the timeline (timeline.js). Below, every machine spillway runs, one at a time, by name. The
// server tells the page when the file grew (server-sent events, `events`): while the page follows
// the last step it asks for the new view then, and only then.

const PLAY_MS = 600;
/** How large the toolCall route is drawn, relative to Mermaid's own size. */
const NATURAL_SCALE = 0.72;

const page = {
  /** The step shown; `undefined` follows the last one. */
  step: undefined,
  view: undefined,
  /** The text of the view shown, to skip drawing the same view again. */
  shown: undefined,
  /** The batch and call picked by a click; `undefined`: the latest batch, its first cut call. */
  batch: undefined,
  call: undefined,
  playing: undefined,
};

const $ = (selector) => document.querySelector(selector);

async function json(path) {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function start() {
  // The run first: the tables and the timeline need no diagram, and Mermaid takes seconds.
  wireControls();
  await refresh();
  document.body.dataset.shown = "true";
  listen();
  await loadScript("mermaid.min.js");
  globalThis.mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    theme: "base",
    themeVariables: {
      fontFamily: "system-ui, -apple-system, 'Segoe UI', sans-serif",
      fontSize: "13px",
      primaryColor: "#eef2ff",
      primaryBorderColor: "#818cf8",
      primaryTextColor: "#1e293b",
      lineColor: "#94a3b8",
      clusterBkg: "#f8fafc",
      clusterBorder: "#cbd5e1",
      edgeLabelBackground: "#ffffff",
    },
  });
  const diagrams = await json("diagrams.json");
  await draw("turn", diagrams.turn, $("#turn-diagram"));
  await draw("toolCall", diagrams.toolCall, $("#call-diagram"), true);
  await draw("upstreamConnection", diagrams.upstreamConnection, $("#connection-diagram"), true);
  await draw("session", diagrams.session, $("#session-diagram"));
  await listMachines(diagrams.machines);
  // Drawn now: light what the view says.
  if (page.view !== undefined) show(page.view);
  document.body.dataset.ready = "true";
}

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`${src} did not load`));
    document.head.append(script);
  });
}

/** Follows the file: each `steps` event, while the last step is followed, brings the new view. */
function listen() {
  const events = new EventSource("events");
  events.addEventListener("steps", (event) => {
    const { steps } = JSON.parse(event.data);
    $("#step-count").textContent = String(steps);
    $("#slider").max = String(steps);
    if (page.step === undefined && page.playing === undefined) refreshSoon();
  });
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) showError(new Error("the inspector stopped"));
  };
}

/** One view asked at a time: events that come while one is asked for bring one more ask. */
function refreshSoon() {
  if (page.asking) {
    page.again = true;
    return;
  }
  page.asking = true;
  refresh().catch(showError).finally(() => {
    page.asking = false;
    if (page.again) {
      page.again = false;
      refreshSoon();
    }
  });
}

async function draw(name, source, element, natural = false) {
  const { svg } = await globalThis.mermaid.render(`diagram-${name}`, source);
  element.innerHTML = svg;
  if (natural) {
    // Drawn at the turn's scale (legible, wider than its panel), scrolled sideways to the lit state.
    const drawn = element.querySelector("svg");
    drawn.style.maxWidth = "none";
    drawn.style.width = `${Math.round(drawn.viewBox.baseVal.width * NATURAL_SCALE)}px`;
  }
}

/** A tab per machine; the picked one is drawn below them. */
async function listMachines(machines) {
  const names = Object.keys(machines);
  const pick = async (name) => {
    for (const tab of $("#machine-tabs").children) {
      tab.className = tab.dataset.machine === name ? "tab shown" : "tab";
    }
    await draw(`machine-${name}`, machines[name], $("#machine-diagram"));
  };
  $("#machine-tabs").replaceChildren(...names.map((name) => {
    const tab = document.createElement("button");
    tab.textContent = name;
    tab.dataset.machine = name;
    tab.className = "tab";
    tab.onclick = () => pick(name).catch(showError);
    return tab;
  }));
  if (names.length > 0) await pick(names[0]);
}

async function refresh() {
  const query = page.step === undefined ? "" : `?step=${page.step}`;
  const response = await fetch(`view.json${query}`, { cache: "no-store" });
  const text = await response.text();
  if (!response.ok) throw new Error(`view.json: ${response.status} ${text}`);
  // Following a file that did not grow: nothing to draw again (a big batch is a big table).
  if (text === page.shown) return;
  page.shown = text;
  show(JSON.parse(text));
}

function wireControls() {
  const go = (step) => {
    stopPlaying();
    goTo(step);
  };
  $("#first").onclick = () => go(0);
  $("#previous").onclick = () => go(current() - 1);
  $("#next").onclick = () => go(current() + 1);
  $("#last").onclick = () => go(undefined);
  $("#slider").oninput = (event) => go(Number(event.target.value));
  $("#play").onclick = () => page.playing === undefined ? play() : stopPlaying();
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft") go(current() - 1);
    if (event.key === "ArrowRight") go(current() + 1);
  });
}

function current() {
  return page.view?.step ?? 0;
}

function goTo(step) {
  const steps = page.view?.steps ?? 0;
  page.step = step === undefined || step >= steps ? undefined : Math.max(0, step);
  refresh().catch(showError);
}

function play() {
  if (current() >= (page.view?.steps ?? 0)) page.step = 0;
  else page.step = current();
  $("#play").textContent = "❚❚ pause";
  page.playing = setInterval(() => {
    if (current() >= (page.view?.steps ?? 0)) return stopPlaying();
    goTo(current() + 1);
  }, PLAY_MS);
  refresh().catch(showError);
}

function stopPlaying() {
  if (page.playing !== undefined) clearInterval(page.playing);
  page.playing = undefined;
  $("#play").textContent = "▶ play";
}

function showError(error) {
  $("#status").textContent = "no answer";
  $("#status").className = "pill failed";
  $("#said").textContent = String(error.message ?? error);
}

function show(view) {
  page.view = view;
  showHeader(view);
  light($("#turn-diagram"), "diagram-turn", view.active);
  keepInView($("#turn-panel"), $("#turn-diagram .current"));
  const batch = view.batches.find((b) => b.cycle === page.batch) ?? view.batches.at(-1);
  showTabs(view.batches, batch);
  showBudget(batch);
  const picked = showCalls(batch);
  showNotices(batch);
  globalThis.showClients(view, page.session ?? batch?.session, (session) => {
    page.session = session;
    show(page.view);
  });
  globalThis.showUpstreams(view, picked?.upstream);
  globalThis.showTimeline(view, { batch: batch?.cycle, call: picked?.index }, (cycle, index) => {
    page.batch = cycle;
    page.call = index;
    page.session = undefined;
    show(page.view);
  });
  document.body.dataset.step = String(view.step);
}

function showHeader(view) {
  const following = page.step === undefined;
  const source = $("#source");
  source.textContent = view.file === undefined
    ? "no inspection file: start with spillway inspect --serve FILE"
    : `${view.file.split(/[\\/]/).at(-1)}${following ? " · following" : ""}`;
  source.title = view.file ?? "";
  const status = $("#status");
  if (view.missing) {
    status.textContent = "waiting for the file";
    status.className = "pill waiting";
  } else if (view.sessions.length > 0) {
    // spillway serve: phases of client sessions, no turn.
    const sessions = `${view.sessions.length} session${view.sessions.length === 1 ? "" : "s"}`;
    const running = view.active.length > 0;
    status.textContent = `${running ? "phase running" : "between phases"} · ${sessions}`;
    status.className = `pill ${running ? "running" : "waiting"}`;
  } else if (view.turn.status === undefined) {
    status.textContent = view.file === undefined ? "machines only" : "waiting for a turn";
    status.className = "pill waiting";
  } else if (view.turn.status === "active") {
    status.textContent = "turn running";
    status.className = "pill running";
  } else {
    const failed = view.turn.state === "failed" || view.turn.status === "error";
    status.textContent = failed ? "turn failed" : "turn finished";
    status.className = `pill ${failed ? "failed" : "done"}`;
  }
  $("#slider").max = String(view.steps);
  $("#slider").value = String(view.step);
  $("#step-number").textContent = String(view.step);
  $("#step-count").textContent = String(view.steps);
  $("#said").textContent = view.said ||
    (view.steps === 0 ? "nothing recorded yet" : "before the first step");
  if (view.unreadable > 0) {
    $("#said").textContent += ` (${view.unreadable} unreadable lines skipped)`;
  }
}

/** Lights the states `ids` (outermost first) of the diagram drawn in `element`. */
function light(element, svgId, ids) {
  for (const lit of element.querySelectorAll(".lit, .current")) {
    lit.classList.remove("lit", "current");
  }
  ids.forEach((id, i) => {
    const nodes = [
      ...element.querySelectorAll(`g.statediagram-cluster[data-id="${id}"]`),
      ...[...element.querySelectorAll("g.node")].filter((node) =>
        node.id.startsWith(`${svgId}-state-${id}-`) &&
        /^\d+$/.test(node.id.slice(`${svgId}-state-${id}-`.length))
      ),
    ];
    for (const node of nodes) node.classList.add(i === ids.length - 1 ? "current" : "lit");
  });
}

/** Scrolls `panel` (not the page) so that `node` is in its middle. */
function keepInView(panel, node) {
  if (node === null) return;
  const box = node.getBoundingClientRect();
  const frame = panel.getBoundingClientRect();
  const middle = box.top + box.height / 2 - frame.top + panel.scrollTop;
  panel.scrollTop = Math.max(0, middle - panel.clientHeight / 2);
  const centre = box.left + box.width / 2 - frame.left + panel.scrollLeft;
  panel.scrollLeft = Math.max(0, centre - panel.clientWidth / 2);
}

function showTabs(batches, shown) {
  const tabs = $("#batch-tabs");
  tabs.replaceChildren(...batches.map((batch) => {
    const tab = document.createElement("button");
    tab.textContent = batch.session === undefined
      ? `cycle ${batch.cycle} · ${calls(batch)}`
      : `phase ${batch.cycle} · session ${batch.session} · ${calls(batch)}`;
    tab.className = batch === shown ? "tab shown" : "tab";
    tab.onclick = () => {
      page.batch = batch.cycle;
      page.call = undefined;
      show(page.view);
    };
    return tab;
  }));
  if (batches.length === 0) {
    const none = document.createElement("p");
    none.className = "quiet";
    none.textContent = "no tool calls yet";
    tabs.append(none);
  }
}

function calls(batch) {
  return `${batch.calls.length} call${batch.calls.length === 1 ? "" : "s"}`;
}

function showBudget(batch) {
  const bar = $("#budget-bar");
  const said = $("#budget-said");
  bar.replaceChildren();
  if (batch === undefined) {
    said.textContent = "";
    return;
  }
  const { limit, asked, spent, commit } = batch.budget;
  if (commit === "failed") said.textContent = "the commit failed: nothing was recorded";
  else if (spent !== undefined) {
    said.textContent = `${spent.text} of the ${limit.text} ceiling spent`;
  } else if (asked !== undefined) {
    said.textContent = asked.bytes > limit.bytes
      ? `the capped responses ask ${asked.text}: over the ${limit.text} ceiling`
      : `the capped responses ask ${asked.text} of the ${limit.text} ceiling`;
  } else said.textContent = `${limit.text} ceiling`;
  const sizeOf = (call) =>
    spent !== undefined ? call.recorded : asked !== undefined ? call.threshold : undefined;
  // Before the commit, capped responses that ask more than the ceiling run past its line.
  const total = spent !== undefined ? limit.bytes : Math.max(limit.bytes, asked?.bytes ?? 0);
  for (const call of batch.calls) {
    const size = sizeOf(call);
    if (size === undefined || size.bytes === 0) continue;
    const part = document.createElement("span");
    part.className = `part hue-${call.index % 6}`;
    part.style.width = `${(100 * size.bytes) / total}%`;
    part.title = `${call.id} · ${call.tool}: ${size.text}`;
    part.textContent = size.bytes / total > 0.08 ? `${call.tool} ${size.text}` : "";
    bar.append(part);
  }
  const line = document.createElement("span");
  line.className = "ceiling";
  line.style.left = `${(100 * limit.bytes) / total}%`;
  line.title = `the batch ceiling: ${limit.text}`;
  bar.append(line);
}

function showCalls(batch) {
  const body = $("#calls tbody");
  const calls = batch?.calls ?? [];
  const picked = calls.find((call) => call.index === page.call) ??
    calls.find((call) => call.cutBy.length > 0) ?? calls[0];
  body.replaceChildren(...calls.map((call) => {
    const row = document.createElement("tr");
    row.className = call === picked ? "picked" : "";
    row.dataset.call = call.id;
    row.onclick = () => {
      page.call = call.index;
      show(page.view);
    };
    row.append(
      cell(String(call.index + 1), "index"),
      cell(call.id, "mono"),
      cell(call.tool, "mono"),
      cell(call.state, `state pill ${call.state.split(".")[0]}`),
      sizeCell(call.raw, call.threshold !== undefined && call.threshold.bytes < call.raw?.bytes),
      sizeCell(call.threshold, false, call.cutBy.includes("size_threshold") && "size_threshold"),
      sizeCell(call.recorded, false, call.cutBy.includes("batch ceiling") && "batch ceiling"),
    );
    if (call.isError) row.classList.add("error");
    return row;
  }));
  showCall(picked);
  return picked;
}

function cell(text, className) {
  const td = document.createElement("td");
  const span = document.createElement("span");
  span.textContent = text;
  span.className = className;
  td.append(span);
  return td;
}

function sizeCell(size, struck, cutBy) {
  const td = document.createElement("td");
  td.className = "size";
  if (size === undefined) {
    td.textContent = "·";
    td.classList.add("quiet");
    return td;
  }
  const value = document.createElement("span");
  value.textContent = size.text;
  value.title = `${size.bytes.toLocaleString("en")} bytes`;
  if (struck) value.className = "struck";
  td.append(value);
  if (cutBy) {
    const tag = document.createElement("span");
    tag.className = "cut";
    tag.textContent = `cut by ${cutBy}`;
    td.append(" ", tag);
  }
  return td;
}

function showNotices(batch) {
  const list = $("#notices ul");
  const notices = batch?.notices ?? [];
  list.replaceChildren(...notices.map((notice) => {
    const item = document.createElement("li");
    item.textContent = notice;
    return item;
  }));
  $("#notices").hidden = notices.length === 0;
}

function showCall(call) {
  $("#call-said").textContent = call === undefined
    ? "no call picked"
    : `${call.id} · ${call.tool} · ${call.state}${
      call.route === undefined ? "" : ` (${call.route})`
    }${call.ended === undefined ? "" : ` · ended by ${call.ended}`}`;
  light($("#call-diagram"), "diagram-toolCall", call?.active ?? []);
  keepInView($("#call-diagram"), $("#call-diagram .current"));
}

start().catch(showError);
