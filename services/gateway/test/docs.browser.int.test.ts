/// <reference lib="dom" />
// The OpenAPI document at /openapi.json and the API reference at /docs, in a real headless
// Chromium: the page renders every operation from assets this gateway serves (no other origin is
// contacted), under the console's strict CSP, without a script error or CSP violation.
import { type Browser } from 'playwright-core';
import { buildOpenApiDocument } from '@glimpse/api';
import { request, startTestGateway } from '../../../test/support/stack';
import { launchChromium } from '../../../test/support/browser';
import type { RunningGateway } from '../src/start';

let gateway: RunningGateway;
let browser: Browser;

beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchChromium("the API reference's browser test"), startTestGateway()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
});

describe('GET /openapi.json', () => {
  it('when the document is requested, then it is the one generated from the schemas, as JSON', async () => {
    const res = await request(`${gateway.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(buildOpenApiDocument());
  });
});

describe('GET /docs', () => {
  it('when the reference is opened, then it comes with the strict CSP and lists every operation, loading nothing from elsewhere', async () => {
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    const origins = new Set<string>();
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    page.on('request', (req) => origins.add(new URL(req.url()).origin));
    page.on('response', (res) => res.status() >= 400 && problems.push(`${res.status()} ${res.url()}`));
    const response = await page.goto(`${gateway.url}/docs`);
    expect(response!.headers()['content-security-policy']).toBe(
      "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'; img-src 'self' data:",
    );
    const operations = page.locator('.opblock-summary-path');
    await operations.first().waitFor();
    const shown = (await operations.allTextContents()).map((t) => t.replace(/\u200b/g, '').trim()).sort();
    const document = buildOpenApiDocument();
    // Every operation of every path, and every webhook (the reference lists each under its name).
    const documented = [
      ...Object.entries(document.paths as Record<string, object>).flatMap(([p, methods]) => Object.keys(methods).map(() => p)),
      ...Object.keys((document as { webhooks?: Record<string, object> }).webhooks ?? {}),
    ];
    expect(shown).toEqual(documented.sort());
    expect(shown).toContain('/events/batch');
    expect([...origins].filter((o) => o !== gateway.url && !o.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("when a file of the package other than the page's two is asked for, then it is 404", async () => {
    expect((await request(`${gateway.url}/docs/assets/package.json`)).status).toBe(404);
    expect((await request(`${gateway.url}/docs/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
