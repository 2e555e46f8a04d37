// Building the page node by node: all data goes in as text nodes or attribute values, never as
// markup, and listeners are attached as functions (the CSP allows no inline handler).

/** What h() accepts as children: nodes, strings (text), nested lists; null, undefined and false are skipped. */
export type Child = Node | string | null | undefined | false | readonly Child[];

type Listener = (event: Event) => unknown;
export type Attrs = Record<string, string | number | boolean | null | undefined | Listener>;

/** An element index.html must have. */
export function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the console's page`);
  return el;
}

// h('p', { class: 'hint' }, 'text', child): attributes, `on…` listeners, children (strings become text).
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (typeof value === 'function') {
      if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    } else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...flatten(children));
  return el;
}

function flatten(children: readonly Child[], into: (Node | string)[] = []): (Node | string)[] {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (typeof child === 'string' || child instanceof Node) into.push(child);
    else flatten(child, into);
  }
  return into;
}

// Children for append/replaceChildren, which would render null as the text "null".
export const present = (...nodes: (Node | string | null | undefined | false)[]): (Node | string)[] =>
  nodes.filter((n): n is Node | string => n !== null && n !== undefined && n !== false);

/** Text for screen readers only, e.g. which row a "Delete" button deletes. */
export const hidden = (text: string): HTMLSpanElement => h('span', { class: 'visually-hidden' }, text);

const SVG_NS = 'http://www.w3.org/2000/svg';

// The SVG counterpart of h(): attributes and children only (no style attributes, no markup strings).
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  el.append(...children);
  return el;
}
