// The inspector page's gateway parts: the clients (each client session, its conversation and its
// session machine lit), the upstream connections (their machine lit), and the timeline of every
// call (when it was known, when its result came, when it was released; its sizes, which cap cut
// it, and why it ended). Loaded before inspector.js, which calls these.

/** Draws the clients of a `spillway serve` recording; lights the session machine of `session`. */
function showClients(view, session, pick) {
  const panel = document.querySelector("#clients-panel");
  panel.hidden = view.clients.length === 0;
  if (panel.hidden) return;
  const shown = view.clients.find((client) => client.session === session) ?? view.clients[0];
  document.querySelector("#clients tbody").replaceChildren(...view.clients.map((client) => {
    const row = document.createElement("tr");
    row.className = client === shown ? "picked" : "";
    row.dataset.session = client.session;
    row.onclick = () => pick(client.session);
    for (
      const [text, className] of [
        [client.session, "mono"],
        [client.conversation ?? "·", "mono quiet"],
        [client.state || "·", `state pill ${client.status === "active" ? "running" : "done"}`],
        [String(client.batches), "index"],
        [String(client.calls), "index"],
      ]
    ) {
      const td = document.createElement("td");
      const span = document.createElement("span");
      span.textContent = text;
      span.className = className;
      td.append(span);
      row.append(td);
    }
    return row;
  }));
  document.querySelector("#session-said").textContent = shown === undefined
    ? ""
    : `session ${shown.session} · ${shown.state}${
      shown.status && shown.status !== "active" ? ` (${shown.status})` : ""
    }`;
  lightRegions(document.querySelector("#session-diagram"), "diagram-session", shown?.active ?? []);
}

/**
 * Lists the upstream connections and lights the machine of the one the picked call went through
 * (`name`), or else the first.
 */
function showUpstreams(view, name) {
  const shown = view.upstreams.find((upstream) => upstream.name === name) ?? view.upstreams[0];
  const chips = document.querySelector("#upstreams");
  chips.replaceChildren(...view.upstreams.map((upstream) => {
    const chip = document.createElement("span");
    chip.className = `chip ${upstream.status === "active" ? "running" : "done"}${
      upstream === shown ? " picked" : ""
    }`;
    chip.textContent = `${upstream.name} · ${upstream.state}`;
    return chip;
  }));
  lightRegions(
    document.querySelector("#connection-diagram"),
    "diagram-upstreamConnection",
    shown?.active ?? [],
  );
}

/** Lights every state of `ids` (a parallel machine's regions: several current at once). */
function lightRegions(element, svgId, ids) {
  for (const lit of element.querySelectorAll(".lit, .current")) {
    lit.classList.remove("lit", "current");
  }
  const leaves = ids.filter((id) => !ids.some((other) => other.startsWith(`${id}_`)));
  for (const id of ids) {
    const nodes = [
      ...element.querySelectorAll(`g.statediagram-cluster[data-id="${id}"]`),
      ...[...element.querySelectorAll("g.node")].filter((node) =>
        node.id.startsWith(`${svgId}-state-${id}-`) &&
        /^\d+$/.test(node.id.slice(`${svgId}-state-${id}-`.length))
      ),
    ];
    for (const node of nodes) node.classList.add(leaves.includes(id) ? "current" : "lit");
  }
}

/** Every call of every batch, in the order their batches began, as a waterfall. */
function showTimeline(view, picked, pick) {
  const rows = view.batches.flatMap((batch) => batch.calls.map((call) => ({ batch, call })));
  // The waterfall spans the calls, from the first known to the last released.
  const from = Math.min(...rows.map(({ call }) => call.startedAt ?? 0));
  const end = Math.max(from + 1, ...rows.map(({ call }) => call.endedAt ?? call.slotAt ?? 0));
  const cut = rows.filter(({ call }) => call.cutBy.length > 0).length;
  document.querySelector("#timeline-said").textContent = rows.length === 0
    ? "no calls yet"
    : `${rows.length} call${rows.length === 1 ? "" : "s"} over ${seconds(end - from)}, ${cut} cut`;
  const percent = (ms) => `${((100 * Math.max(0, ms ?? from)) / (end - from)).toFixed(2)}%`;
  const at = (ms) => ms === undefined ? undefined : ms - from;
  document.querySelector("#timeline").replaceChildren(...rows.map(({ batch, call }) => {
    const row = document.createElement("div");
    row.className = `line${call.cutBy.length > 0 ? " cut-line" : ""}${
      call.isError ? " error" : ""
    }${batch.cycle === picked?.batch && call.index === picked?.call ? " picked" : ""}`;
    row.dataset.call = call.id;
    row.onclick = () => pick(batch.cycle, call.index);
    const when = text(
      "when mono",
      call.startedAt === undefined ? "·" : `+${seconds(call.startedAt)}`,
    );
    const who = text(
      "who mono",
      batch.session === undefined ? `cycle ${batch.cycle}` : batch.session,
    );
    const what = text(
      "what mono",
      `${call.id} ${call.tool}${call.upstream === undefined ? "" : ` via ${call.upstream}`}`,
    );
    const track = document.createElement("span");
    track.className = "track";
    const bar = document.createElement("span");
    bar.className = `bar ${call.endedAt === undefined ? "open" : "closed"}`;
    bar.style.left = percent(at(call.startedAt));
    bar.style.width = `max(2px, ${percent((call.endedAt ?? end) - (call.startedAt ?? from))})`;
    if (call.slotAt !== undefined) {
      const mark = document.createElement("span");
      mark.className = "slot";
      mark.style.left = percent(at(call.slotAt));
      track.append(mark);
    }
    track.prepend(bar);
    const sizes = [call.raw, call.threshold, call.recorded].filter(Boolean).map((s) => s.text);
    const how = text("sizes", sizes.join(" → ") || "·");
    const cutBy = call.cutBy.length === 0
      ? text("quiet", "")
      : text("cut", `cut by ${call.cutBy.join(", ")}`);
    row.title = [
      `${call.id} · ${call.tool}${batch.session ? ` · session ${batch.session}` : ""}`,
      `known +${seconds(call.startedAt ?? 0)}, result +${seconds(call.slotAt ?? 0)}, ` +
      `released +${seconds(call.endedAt ?? 0)}`,
      `ended: ${call.ended ?? "not yet"}`,
    ].join("\n");
    row.append(when, who, what, track, how, cutBy);
    return row;
  }));
}

function text(className, content) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = content;
  return span;
}

function seconds(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

// Classic scripts share the page's globals: these are what inspector.js calls.
Object.assign(globalThis, { showClients, showUpstreams, showTimeline });
