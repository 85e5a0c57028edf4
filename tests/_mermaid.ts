/**
 * Mermaid's own parser, for tests: the `mermaid` package under a jsdom
 * window (it needs a DOM to load, not to parse). `mermaidStates` parses a
 * document the way Mermaid does before drawing it and returns every state
 * with the block Mermaid filed it under, so a test can check nesting as
 * Mermaid understands it, not as the text looks.
 *
 * @module
 */

import { JSDOM } from "jsdom";

/** A state as Mermaid will draw it. */
export interface MermaidState {
  readonly id: string;
  /** The id of the composite state it is drawn in; `undefined` at the top level. */
  readonly parentId: string | undefined;
  readonly isGroup: boolean;
  /** Mermaid's shape: `stateStart` and `stateEnd` for `[*]`, `rect`-like ones for states. */
  readonly shape: string;
}

interface MermaidDb {
  getData(): { nodes: { id: string; parentId?: string; isGroup?: boolean; shape: string }[] };
}

interface MermaidApi {
  initialize(config: Record<string, unknown>): void;
  parse(text: string): Promise<unknown>;
  mermaidAPI: { getDiagramFromText(text: string): Promise<{ db: MermaidDb }> };
}

let loaded: Promise<MermaidApi> | undefined;

function mermaid(): Promise<MermaidApi> {
  loaded ??= (async () => {
    const dom = new JSDOM("<!doctype html><html><body></body></html>");
    const globals = globalThis as Record<string, unknown>;
    globals.window = dom.window;
    globals.document = dom.window.document;
    const api = (await import("mermaid")).default as unknown as MermaidApi;
    api.initialize({ startOnLoad: false });
    return api;
  })();
  return loaded;
}

/**
 * Parses `text` with Mermaid; rejects with Mermaid's parse error (which
 * quotes the line) when it is not a valid diagram.
 */
export async function parseMermaid(text: string): Promise<void> {
  await (await mermaid()).parse(text);
}

/** Every state of a `stateDiagram-v2`, with the block Mermaid files it under. */
export async function mermaidStates(text: string): Promise<MermaidState[]> {
  const diagram = await (await mermaid()).mermaidAPI.getDiagramFromText(text);
  return diagram.db.getData().nodes.map((node) => ({
    id: node.id,
    parentId: node.parentId,
    isGroup: node.isGroup === true,
    shape: node.shape,
  }));
}
