/** A page of the console: fills `root` (already on the page) and loads its data; the router reports a rejection. */
export type PageRender = (root: HTMLElement, params: URLSearchParams) => Promise<void> | void;
