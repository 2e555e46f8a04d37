// The public API's OpenAPI document: generated from the zod schemas, committed up to date, valid
// OpenAPI 3.1 (the official schema, by an independent validator), clean under @redocly/cli lint,
// and the answer checker built on it accepts and rejects what it should.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { interfaceViolations, loadInterface, OPENAPI_FILE } from '../support/openapi';

// The validator is an ES module; its own command line runs it as one (jest runs tests as CommonJS).
const VALIDATE = path.join(__dirname, '..', '..', 'node_modules', '@seriousme', 'openapi-schema-validator', 'bin', 'validate-api-cli.js');
function validateOpenApi(file: string): { valid: boolean; errors?: unknown } {
  try {
    return JSON.parse(execFileSync(process.execPath, [VALIDATE, file], { encoding: 'utf8' }));
  } catch (err) {
    return JSON.parse((err as { stdout: string }).stdout);
  }
}

const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });

it('when the document is generated, then docs/openapi.json is that document (npm run openapi writes it)', () => {
  expect(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'))).toEqual(loadInterface());
});

it('when the document is validated against the OpenAPI 3.1 schema, then it is valid and names the public endpoints', () => {
  expect(validateOpenApi(OPENAPI_FILE)).toEqual({ valid: true });
  const paths = Object.keys(loadInterface().paths as object);
  expect(paths.filter((p) => !p.startsWith('/account/')).sort()).toEqual([
    '/collect',
    '/companies/enrichment',
    '/companies/enrichment/bulk',
    '/events',
    '/events/batch',
    '/visitors/enrichment',
    '/visitors/enrichment/bulk',
    '/visitors/{visitorId}/details',
  ]);
  expect(paths.filter((p) => p.startsWith('/account/')).sort()).toEqual([
    '/account/alert-settings',
    '/account/api-keys',
    '/account/api-keys/{id}',
    '/account/companies',
    '/account/companies.csv',
    '/account/companies/{key}',
    '/account/event-tokens',
    '/account/event-tokens/{id}',
    '/account/events/catalog',
    '/account/events/dry-run',
    '/account/events/recent',
    '/account/events/{eventId}',
    '/account/intent',
    '/account/link-tokens',
    '/account/link-tokens/{id}',
    '/account/page-rules',
    '/account/page-rules/{id}',
    '/account/persons/{email}',
    '/account/playbooks',
    '/account/playbooks/{id}',
    '/account/playbooks/{id}/enrollments',
    '/account/segments',
    '/account/segments/{id}',
    '/account/segments/{id}/members',
    '/account/sites',
    '/account/sites/{id}',
    '/account/sites/{id}/identity-secret',
    '/account/sites/{id}/stats',
    '/account/sites/{id}/traffic',
    '/account/suppressions',
    '/account/suppressions/{email}',
    '/account/usage',
    '/account/visitors',
    '/account/visitors/{id}',
    '/account/webhooks',
    '/account/webhooks/{id}',
    '/account/webhooks/{id}/deliveries',
    '/account/webhooks/{id}/rotate-secret',
  ]);
});

it('when @redocly/cli lints the document, then it finds no error and no warning', () => {
  const redocly = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'redocly');
  const out = execFileSync(redocly, ['lint', '--config', 'redocly.yaml', '--format', 'json', OPENAPI_FILE], {
    encoding: 'utf8',
    cwd: path.join(__dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const report = JSON.parse(out.slice(out.indexOf('{'))) as { totals: { errors: number; warnings: number } };
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
});

it('when a response of the document loses its required description, then the validator says it is invalid', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  try {
    const broken = path.join(dir, 'broken.json');
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    delete document.paths['/visitors/{visitorId}/details'].get.responses['200'].description;
    writeFileSync(broken, JSON.stringify(document));
    expect(validateOpenApi(broken).valid).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('interfaceViolations', () => {
  const path = '/visitors/0123456789abcdef01234567/details';

  it('when a details answer has a null field, a scheme-less URL or an invalid email, then each is a violation', () => {
    expect(
      interfaceViolations('GET', path, {
        status: 200,
        headers: json,
        body: { name: 'Ada', email: 'ada@example.com', pronet_url: 'https://pronet.example/in/ada' },
      }),
    ).toEqual([]);
    const bad = interfaceViolations('GET', path, {
      status: 200,
      headers: json,
      body: { company_role: null, pronet_url: 'pronet.example/in/ada', email: 'not an email' },
    });
    expect(bad).toEqual(
      expect.arrayContaining([
        expect.stringContaining('/company_role must be string'),
        expect.stringContaining('/email must match format "email"'),
        expect.stringContaining('/pronet_url must match format "uri"'),
      ]),
    );
    expect(bad).toHaveLength(3);
  });

  it('when an answer has a status the operation does not list, a non-JSON body, or an error body with extra fields, then it is a violation', () => {
    expect(interfaceViolations('GET', path, { status: 418, headers: json, body: {} })).toEqual([expect.stringContaining('does not list')]);
    const eventId = '0b6c2a1e-3f1d-4c5e-9a7b-2d8e6f4a1c3b';
    expect(
      interfaceViolations('POST', '/events', { status: 200, headers: new Headers({ 'content-type': 'text/plain', 'x-event-id': eventId }), body: 'ok' }),
    ).toEqual([expect.stringContaining('not application/json')]);
    expect(interfaceViolations('POST', '/events', { status: 200, headers: json, body: { ok: true } })).toEqual(['200 lacks the X-Event-Id header']);
    expect(interfaceViolations('POST', '/events', { status: 400, headers: json, body: { error: 'invalid_request', message: 'no', detail: 1 } })).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
  });

  it('when a 503 lacks Retry-After, then it is a violation', () => {
    const body = { error: 'service_unavailable', message: 'retry later' };
    expect(interfaceViolations('POST', '/visitors/enrichment', { status: 503, headers: json, body })).toEqual(['503 lacks the Retry-After header']);
    expect(
      interfaceViolations('POST', '/visitors/enrichment', {
        status: 503,
        headers: new Headers({ 'content-type': 'application/json', 'retry-after': '1' }),
        body,
      }),
    ).toEqual([]);
  });

  it('when a webhooks answer shows a secret that is not whsec_, an attempt without its duration, or a limit 409 without Retry-After, then only the first two are violations', () => {
    const at = '2026-11-23T19:00:00.000Z';
    const endpoint = {
      id: '0b6c2a1e-3f1d-4c5e-9a7b-2d8e6f4a1c3b',
      url: 'https://93.184.216.34/hooks',
      kind: 'webhook',
      events: ['enrollment.started'],
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      createdAt: at,
      updatedAt: at,
    };
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(interfaceViolations('POST', '/account/webhooks', { status: 201, headers: json, body: { ...endpoint, secret } })).toEqual([]);
    expect(interfaceViolations('POST', '/account/webhooks', { status: 201, headers: json, body: { ...endpoint, secret: 'plain' } })).toEqual([
      expect.stringContaining('/secret must match pattern'),
    ]);
    const delivery = {
      id: endpoint.id,
      effectId: endpoint.id,
      type: 'enrollment.started',
      status: 'failed',
      createdAt: at,
      nextAttemptAt: null,
      finishedAt: at,
    };
    const attempt = { at, succeeded: false, responseStatus: 500, error: 'endpoint answered 500' };
    expect(
      interfaceViolations('GET', `/account/webhooks/${endpoint.id}/deliveries`, {
        status: 200,
        headers: json,
        body: { items: [{ ...delivery, attempts: [{ ...attempt, durationMs: 12 }] }], nextCursor: null },
      }),
    ).toEqual([]);
    expect(
      interfaceViolations('GET', `/account/webhooks/${endpoint.id}/deliveries`, {
        status: 200,
        headers: json,
        body: { items: [{ ...delivery, attempts: [attempt] }], nextCursor: null },
      }),
    ).toEqual([expect.stringContaining("must have required property 'durationMs'")]);
    expect(interfaceViolations('POST', '/account/webhooks', { status: 409, headers: json, body: { error: 'limit_reached', message: 'at most 3' } })).toEqual(
      [],
    );
  });
});
