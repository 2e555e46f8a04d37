// The visitors service's IP datasets and network-type overrides over its internal API, for the
// gateway's operator API (/operator/ip-datasets, /operator/network-types): the same code as `glimpse
// ip-datasets` and `glimpse network-types` without a gateway, run here as the service's role so the
// operator's machine needs no route to the database. Only the gateway calls them; the data belongs
// to the installation, not to the account the guard is told (the gateway names the nil UUID).
import express, { type Request, type Router } from 'express';
import { AppError } from '@glimpse/errors';
import { internalCallers } from '@glimpse/http';
import { deleteIpDataset, listIpDatasets } from '../data/ip-datasets.js';
import { deleteNetworkTypeOverride, listNetworkTypeOverrides, setNetworkTypeOverride } from '../data/network-type-overrides.js';

export interface IpDataRoutesOptions {
  /** The service's own database, as its role (it owns ip_datasets and network_type_overrides). */
  databaseUrl: string;
  internalTokens: Partial<Record<string, string>>;
}

/** An optional text field of a body or a query: absent, or one string. */
function optionalText(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AppError('invalid_request', `${name} must be one string`);
  return value;
}

/** The network an override is about: {asn} or {org}, from a body or a query (overrideKey checks exactly one is given). */
function targetOf(source: Record<string, unknown>): { asn?: string; org?: string } {
  return { asn: optionalText(source.asn, 'asn'), org: optionalText(source.org, 'org') };
}

/** The body of PUT /internal/network-types: {asn | org, type}. */
function overrideOf(req: Request): { target: { asn?: string; org?: string }; type: string } {
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('invalid_request', 'send a JSON object: {"asn": "7922", "type": "isp"} or {"org": "Example Corp", "type": "business"}');
  const fields = body as Record<string, unknown>;
  const type = optionalText(fields.type, 'type');
  if (type === undefined) throw new AppError('invalid_request', 'type: name the network type');
  return { target: targetOf(fields), type };
}

export function ipDataRoutes({ databaseUrl, internalTokens }: IpDataRoutesOptions): Router {
  const router = express.Router();
  router.use(['/internal/ip-datasets', '/internal/network-types'], internalCallers({ tokens: internalTokens, routes: { gateway: '*' } }));

  router.get('/internal/ip-datasets', async (_req, res) => {
    res.json(await listIpDatasets(databaseUrl));
  });
  router.delete('/internal/ip-datasets/:name', async (req, res) => {
    res.json(await deleteIpDataset(databaseUrl, req.params.name as string));
  });

  router.get('/internal/network-types', async (_req, res) => {
    res.json(await listNetworkTypeOverrides(databaseUrl));
  });
  router.put('/internal/network-types', express.json({ limit: '4kb', strict: false }), async (req, res) => {
    const { target, type } = overrideOf(req);
    res.json(await setNetworkTypeOverride(databaseUrl, target, type));
  });
  router.delete('/internal/network-types', async (req, res) => {
    res.json(await deleteNetworkTypeOverride(databaseUrl, targetOf(req.query)));
  });
  return router;
}
