// A site's settings as form fields, for adding a site and for editing one.
import { invalid } from '../api';
import type { Site } from '../api-types';
import { field } from '../components';
import { h } from '../dom';
import { EVENT_NAME, notAnEventName } from '../event-name';

// Origins typed one per line, or separated by commas or spaces (an origin has none); event names
// by commas or lines only, so a name typed with a space is refused rather than split in two.
const splitList = (text: string, separators = /[\s,]+/): string[] =>
  text
    .split(separators)
    .map((s) => s.trim())
    .filter(Boolean);

/** The body of POST /account/sites and PATCH /account/sites/{id}. */
export interface SiteInput {
  name: string;
  origins: string[];
  track_events: string[];
  capture_forms: boolean;
  consent: string;
  honor_gpc: boolean;
  identity_verification: string;
}

export interface SiteFields {
  elements: HTMLElement[];
  /** The input as typed, or an ApiError naming the field that is wrong (which gets the focus). */
  read: () => SiteInput;
  focus: () => void;
}

/** The form's inputs, each prefilled from the site being edited (or its default for a new one). */
interface SiteInputs {
  name: HTMLInputElement;
  origins: HTMLTextAreaElement;
  events: HTMLInputElement;
  captureForms: HTMLInputElement;
  consent: HTMLSelectElement;
  honorGpc: HTMLInputElement;
  verification: HTMLSelectElement;
}

/** `prefix` keeps the ids of the add and edit forms apart; `site` prefills them. */
export function siteFields(prefix: string, site: Site | null): SiteFields {
  const inputs = siteInputs(prefix, site);
  return {
    elements: [...listFields(prefix, inputs), privacyFieldset(prefix, inputs)],
    read: () => readSite(inputs),
    focus: () => inputs.name.focus(),
  };
}

// The inputs, prefilled; the checkboxes get their ids here, as their labels sit beside them (check()).
function siteInputs(prefix: string, site: Site | null): SiteInputs {
  const origins = h('textarea', { rows: '3', required: true, spellcheck: 'false', autocomplete: 'off', placeholder: 'https://www.example.com' });
  origins.value = site?.origins.join('\n') ?? '';
  return {
    name: h('input', { type: 'text', required: true, maxlength: '100', autocomplete: 'off', value: site?.name ?? '' }),
    origins,
    events: h('input', {
      type: 'text',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'signup_started, demo_requested',
      value: site?.track_events.join(', ') ?? '',
    }),
    captureForms: h('input', {
      type: 'checkbox',
      id: `${prefix}-capture-forms`,
      checked: site?.capture_forms === true,
      'aria-describedby': `${prefix}-capture-forms-hint`,
    }),
    consent: h(
      'select',
      {},
      h('option', { value: 'implied', selected: site?.consent !== 'required' }, 'Implied: a visitor id at once'),
      h('option', { value: 'required', selected: site?.consent === 'required' }, 'Required: cookieless until the visitor consents'),
    ),
    honorGpc: h('input', {
      type: 'checkbox',
      id: `${prefix}-honor-gpc`,
      checked: site?.honor_gpc !== false,
      'aria-describedby': `${prefix}-honor-gpc-hint`,
    }),
    verification: verificationSelect(site?.identity_verification ?? 'off'),
  };
}

// Identity verification's modes, `mode` selected.
function verificationSelect(mode: string): HTMLSelectElement {
  return h(
    'select',
    {},
    h('option', { value: 'off', selected: mode === 'off' }, 'Off: every identify is a claim'),
    h('option', { value: 'optional', selected: mode === 'optional' }, 'Optional: a valid hash makes it verified'),
    h('option', { value: 'required', selected: mode === 'required' }, 'Required: an identify without a valid hash is dropped'),
  );
}

// A checkbox with its label and hint beside it (the hint's id is the one the box is described by).
const check = (input: HTMLInputElement, label: string, hint: string): HTMLDivElement =>
  h('div', { class: 'check' }, input, h('div', {}, h('label', { for: input.id }, label), h('p', { class: 'hint', id: `${input.id}-hint` }, hint)));

// The name, the origins and the events the browser may track.
function listFields(prefix: string, inputs: SiteInputs): HTMLDivElement[] {
  return [
    field(`${prefix}-name`, 'Name', inputs.name),
    field(
      `${prefix}-origins`,
      'Origins',
      inputs.origins,
      'One per line, scheme and host (and port if not the default), e.g. https://www.example.com. Page views from any other origin are refused.',
    ),
    field(
      `${prefix}-events`,
      'Events the browser may track',
      inputs.events,
      "Comma-separated names the tag may send with glimpse('track', name, properties); others are dropped. Empty: none.",
    ),
  ];
}

// "Identification and privacy": forms, consent, GPC and identity verification.
function privacyFieldset(prefix: string, inputs: SiteInputs): HTMLFieldSetElement {
  return h(
    'fieldset',
    { class: 'policies' },
    h('legend', {}, 'Identification and privacy'),
    check(
      inputs.captureForms,
      'Capture forms',
      'When a visitor submits a form with an email field, identify them by it (method “form”). Password fields and fields marked data-glimpse-ignore are never sent.',
    ),
    field(
      `${prefix}-consent`,
      'Consent',
      inputs.consent,
      "Required: no cookie and no storage until glimpse('consent', 'granted'); page views are counted cookieless until then.",
    ),
    check(inputs.honorGpc, 'Honour Global Privacy Control', 'A browser sending the GPC signal stays cookieless and is never identified.'),
    field(
      `${prefix}-identity-verification`,
      'Identity verification',
      inputs.verification,
      "glimpse('identify', {email, hash}): your server computes hash, the HMAC-SHA256 of the email with the site's identity secret. Without it anyone with the site key can claim any email.",
    ),
  );
}

// The input as typed; a tracked event name that is not an event name is refused and gets the focus.
function readSite(inputs: SiteInputs): SiteInput {
  const { events } = inputs;
  const trackEvents = splitList(events.value, /[\n,]+/);
  const bad = trackEvents.find((n) => !EVENT_NAME.test(n));
  if (bad !== undefined) {
    events.setAttribute('aria-invalid', 'true');
    events.focus();
    throw invalid(notAnEventName(bad));
  }
  events.removeAttribute('aria-invalid');
  return {
    name: inputs.name.value.trim(),
    origins: splitList(inputs.origins.value),
    track_events: trackEvents,
    capture_forms: inputs.captureForms.checked,
    consent: inputs.consent.value,
    honor_gpc: inputs.honorGpc.checked,
    identity_verification: inputs.verification.value,
  };
}
