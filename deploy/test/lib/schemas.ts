// Validates Kubernetes objects against the vendored schemas (deploy/test/schemas: Kubernetes' API
// and the operators' CRDs), strictly, as the API server does with field validation "Strict": an
// unknown field or a wrong type is an error. CEL rules (x-kubernetes-validations) are not evaluated.
import Ajv, { type ValidateFunction } from 'ajv';
import kubernetes from '../schemas/kubernetes.json';
import crds from '../schemas/crds.json';
import type { K8sObject } from './render';

type Schema = Record<string, any>;

const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** OpenAPI (v2 definitions, v3 CRD schemas) → JSON Schema for ajv, with unknown fields refused. */
function toJsonSchema(node: any): any {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' || k === 'patternProperties' || k === 'definitions') {
      out[k] = Object.fromEntries(Object.entries(v as Schema).map(([pk, pv]) => [pk, toJsonSchema(pv)]));
    } else if (k === '$ref' && typeof v === 'string') {
      out.$ref = `k8s${v}`;
    } else out[k] = toJsonSchema(v);
  }
  if (out['x-kubernetes-int-or-string']) {
    delete out.type;
    if (!out.anyOf) out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  const open = out['x-kubernetes-preserve-unknown-fields'] === true;
  if (out.properties && out.additionalProperties === undefined && !open) out.additionalProperties = false;
  return out;
}

const definitions = toJsonSchema((kubernetes as any).definitions);
definitions[INT_OR_STRING] = { anyOf: [{ type: 'integer' }, { type: 'string' }] };
definitions[QUANTITY] = { anyOf: [{ type: 'number' }, { type: 'string' }] };

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'k8s', definitions });

const compiled = new Map<string, ValidateFunction>();

function validatorFor(gvk: string): { validate: ValidateFunction; crd: boolean } | undefined {
  const k8sName = (kubernetes as any).gvks[gvk] as string | undefined;
  const crd = (crds as Record<string, { schema: Schema }>)[gvk];
  if (!k8sName && !crd) return undefined;
  let validate = compiled.get(gvk);
  if (!validate) {
    validate = k8sName ? ajv.getSchema(`k8s#/definitions/${k8sName}`)! : ajv.compile(toJsonSchema(crd!.schema));
    compiled.set(gvk, validate);
  }
  return { validate, crd: Boolean(crd) };
}

const objectMeta = () => ajv.getSchema('k8s#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!;

export const gvkOf = (o: K8sObject) => `${o.apiVersion}/${o.kind}`;

/** Every problem with the object, as "path: message" lines; empty when valid. */
export function validateObject(o: K8sObject): string[] {
  const gvk = gvkOf(o);
  const v = validatorFor(gvk);
  if (!v) return [`no schema for ${gvk}: vendor it (deploy/test/schemas/vendor.js)`];
  const problems: string[] = [];
  const report = (fn: ValidateFunction, prefix: string) => {
    for (const e of fn.errors ?? []) {
      const extra =
        e.keyword === 'additionalProperties'
          ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"`
          : e.keyword === 'enum'
            ? ` ${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)}`
            : '';
      problems.push(`${prefix}${e.instancePath || '/'}: ${e.message}${extra}`);
    }
  };
  if (!v.validate(o)) report(v.validate, '');
  // CRD schemas leave metadata open; the API server still checks it as ObjectMeta.
  if (v.crd && !objectMeta()(o.metadata)) report(objectMeta(), '/metadata');
  return problems;
}
