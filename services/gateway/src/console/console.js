// The Glimpse web console: one page with hash routes over the management API (/account/…).
// The key the person signs in with lives in `apiKey` only — never in storage, cookies or the URL —
// so reloading signs out. A created token or key is rendered once and removed from the DOM when
// dismissed or when <main> is replaced (another page, sign-out). All data goes in as text nodes.

const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
const SCOPES = [
  ['visitors:read', 'visitor details lookup'],
  ['enrichment:read', 'enrichment lookup'],
  ['account:manage', 'this console and the management API'],
];
const API_ROOT = new URL('../account/', document.baseURI); // the console lives at /console/
const HOME = 'event-tokens';

let apiKey = null;

const $ = (id) => document.getElementById(id);

// h('p', { class: 'hint' }, 'text', child): attributes, `on…` listeners, children (strings become text).
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}
// Children for append/replaceChildren, which would render null as the text "null".
const present = (...nodes) => nodes.filter((n) => n !== null && n !== undefined && n !== false);
const hidden = (text) => h('span', { class: 'visually-hidden' }, text);

// ---- API -----------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  return (await call(method, path, body)).data;
}

// The status too, where it tells something (POST /account/suppressions: 201 new, 200 already).
async function call(method, path, body) {
  /** @type {RequestInit & { headers: Record<string, string> }} */
  const init = { method, headers: { authorization: `Bearer ${apiKey}` }, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(new URL(path, API_ROOT), init);
  } catch {
    throw new ApiError(0, 'network_error', 'The gateway could not be reached. Check the connection and try again.');
  }
  if (res.status === 204) return { status: 204, data: null };
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data?.error ?? 'http_error', data?.message ?? `The gateway answered ${res.status}.`);
  return { status: res.status, data };
}

// ---- messages and actions --------------------------------------------------------------------

function clearMessages() {
  $('error').textContent = '';
  $('status').textContent = '';
}
const say = (text) => ($('status').textContent = text);

// An account without the workflows add-on: the pages of its endpoints (event tokens, playbooks,
// page rules, events' dry run) say why they are refused, once, under the page's heading.
function addonNotice() {
  const page = $('main').querySelector('.page');
  if (!page || page.querySelector('.addon-notice')) return;
  const notice = h(
    'div',
    { class: 'notice addon-notice', role: 'note' },
    h('strong', {}, 'Workflows add-on required. '),
    'This account does not have the workflows add-on, which covers posting events, creating event tokens, playbooks and page rules. Ask your Glimpse operator to enable it; the rest of the console works without it.',
  );
  const heading = page.querySelector('h1');
  if (heading) heading.after(notice);
  else page.prepend(notice);
}

function fail(err) {
  if (err instanceof ApiError && err.code === 'addon_required') addonNotice();
  // A bug in this script: its stack for whoever debugs, never its message (it could quote data).
  if (!(err instanceof ApiError)) console.error(`Console error (${err?.name ?? typeof err})`, String(err?.stack ?? '').split('\n').slice(1).join('\n'));
  const message = err instanceof ApiError ? err.message : 'Something went wrong in the console; reload the page and try again.';
  if (err.status === 401 && apiKey !== null) {
    signOut();
    $('error').textContent = `Signed out: ${message}`;
    return;
  }
  $('error').textContent = message;
}

// Wraps a handler: clears old messages, ignores repeat clicks while busy, reports any error.
// The button is marked aria-disabled rather than disabled so keyboard focus stays on it.
function action(fn) {
  return async (event) => {
    event?.preventDefault();
    const button = event?.submitter ?? (event?.currentTarget instanceof HTMLButtonElement ? event.currentTarget : null);
    if (button?.getAttribute('aria-disabled') === 'true') return;
    clearMessages();
    button?.setAttribute('aria-disabled', 'true');
    try {
      await fn(event);
    } catch (err) {
      fail(err);
    } finally {
      button?.removeAttribute('aria-disabled');
    }
  };
}

// ---- building blocks -----------------------------------------------------------------------

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateTimeSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const when = (iso, none = '–', format = dateTime) => (iso ? h('time', { datetime: iso, title: iso }, format.format(new Date(iso))) : none);
const names = (list) => (list.length ? list.map((n, i) => [i ? ', ' : '', h('code', {}, n)]) : '–');

function field(id, label, input, hint) {
  input.id = id;
  if (hint) input.setAttribute('aria-describedby', `${id}-hint`);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint && h('p', { class: 'hint', id: `${id}-hint` }, hint));
}

// The first cell is the row's header, so screen readers name each row by it.
function table(caption, columns, rows, numeric = []) {
  return h(
    'table',
    {},
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, columns.map((c, i) => h('th', { scope: 'col', class: numeric.includes(i) ? 'num' : null }, c)))),
    h('tbody', {}, rows.map((cells) => tableRow(cells, numeric))),
  );
}
function tableRow(cells, numeric = []) {
  return h('tr', {}, cells.map((c, i) => h(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : null, class: numeric.includes(i) ? 'num' : null }, c)));
}

function pageHeading(title, intro) {
  return [h('h1', { tabindex: '-1' }, title), intro && h('p', { class: 'intro' }, intro)];
}

const loading = () => h('p', { class: 'muted' }, 'Loading…');

// Shows a new secret once. The text node inside is the page's only copy: dismissing removes it.
function secretBox(title, secret, onDismiss) {
  const value = h('code', { class: 'secret-value', id: 'one-time-secret' }, secret);
  const box = h(
    'section',
    { class: 'secret-box', 'aria-labelledby': 'secret-title', tabindex: '-1' },
    h('h2', { id: 'secret-title' }, title),
    h('p', {}, 'Copy it now and keep it somewhere safe: it is shown only this once.'),
    h('p', {}, value),
    h(
      'div',
      { class: 'actions' },
      copyButton('Copy', value),
      h('button', { type: 'button', class: 'secondary', onclick: () => { box.remove(); onDismiss(); } }, 'Done, hide it'),
    ),
  );
  return box;
}

// Copies an element's text; where the clipboard API is refused (no permission, not a secure
// context), selects the text and tries the old copy command, else asks for the keyboard.
function copyButton(label, source) {
  return h('button', { type: 'button', onclick: copy }, label);
  async function copy() {
    clearMessages();
    try {
      await navigator.clipboard.writeText(source.textContent);
      say('Copied to the clipboard.');
    } catch {
      getSelection().selectAllChildren(source);
      let copied;
      try {
        copied = document.execCommand('copy');
      } catch {
        copied = false;
      }
      say(copied ? 'Copied to the clipboard.' : 'The clipboard is not available here: the text is selected, copy it with your keyboard.');
    }
  }
}

// Runs `task` at once and then every `intervalMs()` while `owner` is on the page, paused while the tab
// is hidden (resumed at once when it shows again). `task` answering false stops it for good.
function poll(owner, task, intervalMs) {
  let timer = null;
  let running = false;
  let stopped = false;
  const onVisibility = () => {
    if (document.hidden) {
      clearTimeout(timer);
      timer = null;
    } else if (timer === null && !running) void tick();
  };
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisibility);
  };
  async function tick() {
    timer = null;
    if (stopped || !owner.isConnected || apiKey === null) return stop();
    if (document.hidden) return;
    running = true;
    try {
      if ((await task()) === false) return stop();
    } catch (err) {
      if (owner.isConnected) fail(err);
    } finally {
      running = false;
    }
    if (!stopped && owner.isConnected && !document.hidden) timer = setTimeout(tick, intervalMs());
  }
  document.addEventListener('visibilitychange', onVisibility);
  timer = setTimeout(tick, 0); // once the caller has put `owner` on the page
  return { stop, now: () => (timer !== null ? (clearTimeout(timer), tick()) : undefined) };
}

// A table loaded page by page with the API's cursor and a "Load more" button.
function pagedTable({ caption, columns, fetchPage, row, empty }) {
  const wrap = h('div', {}, loading());
  let body;
  const more = h('button', { type: 'button', class: 'secondary', onclick: action(() => load(true)) }, 'Load more');
  let cursor = null;
  async function load(append) {
    const page = await fetchPage(append ? cursor : null);
    if (!wrap.isConnected) return;
    cursor = page.nextCursor;
    const rows = page.items.map((item) => tableRow(row(item)));
    if (!append) {
      const t = table(caption, columns, []);
      body = t.tBodies[0];
      wrap.replaceChildren(page.items.length ? t : h('p', {}, empty));
    }
    body.append(...rows);
    if (cursor) wrap.append(more);
    else more.remove();
    if (append && rows[0]) {
      // Keyboard and screen-reader users continue from the first row that was added.
      const first = rows[0].firstElementChild;
      first.setAttribute('tabindex', '-1');
      first.focus();
      say(`${rows.length} more loaded${cursor ? '' : '; that is all'}.`);
    }
  }
  return { element: wrap, load: () => load(false) };
}

// ---- pages ---------------------------------------------------------------------------------

function signInPage(root) {
  const input = h('input', { type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const submit = action(async () => {
    const key = input.value.trim();
    if (!key) throw new ApiError(0, 'invalid_request', 'Enter a management API key.');
    apiKey = key;
    try {
      await api('GET', 'event-tokens');
    } catch (err) {
      apiKey = null;
      input.focus();
      throw err;
    }
    input.value = '';
    if (!currentRoute()) history.replaceState(null, '', `#/${HOME}`);
    render();
    focusHeading();
    say('Signed in.');
  });
  root.append(
    h(
      'form',
      { class: 'sign-in', onsubmit: submit },
      pageHeading('Sign in', 'Sign in with an API key that has the account:manage scope.'),
      field('api-key', 'Management API key', input, 'Kept in this tab’s memory only: reloading or closing the page signs you out.'),
      h('button', { type: 'submit' }, 'Sign in'),
    ),
  );
}

// Event tokens and API keys: a create control, the one-time secret, the list with revoke.
const CREDENTIALS_PAGE_SIZE = 50;
/** @param {{ path: string, title: string, intro: string, noun: string, secretField: string, extraFields?: () => any, body?: (form: HTMLFormElement) => any, extraColumns?: string[], extraCells?: (row: any) => any[] }} page */
function credentialsPage({ path, title, intro, noun, secretField, extraFields = () => null, body = () => undefined, extraColumns = [], extraCells = () => [] }) {
  return (root) => {
    const slot = h('div');
    const list = h('div', {}, loading());
    const form = h('form', { class: 'create' });
    const extras = extraFields();
    const createButton = h('button', { type: 'submit' }, `Create ${noun}`);
    form.append(...[extras, createButton].filter(Boolean));
    form.addEventListener(
      'submit',
      action(async () => {
        const created = await api('POST', path, body(form));
        form.reset();
        slot.replaceChildren(secretBox(`New ${noun} ${created.prefix}`, created[secretField], () => createButton.focus()));
        slot.firstElementChild.focus();
        await load();
      }),
    );

    // A page at a time (the API's pages, newest first), with "Load more" when there are more.
    async function load() {
      const paged = pagedTable({
        caption: title,
        columns: ['Prefix', ...extraColumns, 'Created', 'Last used', 'Status', 'Actions'],
        empty: `No ${noun}s yet.`,
        fetchPage: (cursor) => api('GET', `${path}?${new URLSearchParams({ limit: String(CREDENTIALS_PAGE_SIZE), ...(cursor ? { cursor } : {}) })}`),
        row: (c) => [
          h('code', {}, `${c.prefix}…`),
          ...extraCells(c),
          when(c.createdAt),
          when(c.lastUsedAt, 'Never'),
          c.revokedAt ? ['Revoked ', when(c.revokedAt)] : 'Active',
          c.revokedAt ? '' : h('button', { type: 'button', class: 'danger', onclick: action(() => revoke(c)) }, 'Revoke', hidden(` ${c.prefix}`)),
        ],
      });
      if (!list.isConnected) return;
      list.replaceChildren(paged.element);
      await paged.load();
    }
    async function revoke(c) {
      if (!confirm(`Revoke ${noun} ${c.prefix}…? Requests that use it will be refused from now on.`)) return;
      await api('DELETE', `${path}/${c.id}`);
      await load();
      listHeading.focus(); // the button is gone with the row's old state
      say(`${noun[0].toUpperCase()}${noun.slice(1)} ${c.prefix}… revoked.`);
    }

    const listHeading = h('h2', { tabindex: '-1' }, `Your ${noun}s`);
    root.append(...pageHeading(title, intro), form, slot, listHeading, list);
    return load();
  };
}

const eventTokensPage = credentialsPage({
  path: 'event-tokens',
  title: 'Event tokens',
  noun: 'event token',
  secretField: 'token',
  intro: 'Event tokens authenticate POST /events. Revoke a token you no longer use or that may have leaked.',
});

const apiKeysPage = credentialsPage({
  path: 'api-keys',
  title: 'API keys',
  noun: 'API key',
  secretField: 'key',
  intro: 'API keys authenticate the lookups and this console; each key has only the scopes you give it.',
  extraFields: () =>
    h(
      'fieldset',
      {},
      h('legend', {}, 'Scopes of the new key'),
      SCOPES.map(([scope, what]) =>
        h('div', { class: 'check' }, h('input', { type: 'checkbox', name: 'scope', value: scope, id: `scope-${scope}` }), h('label', { for: `scope-${scope}` }, h('code', {}, scope), ` — ${what}`)),
      ),
    ),
  body: (form) => {
    const scopes = [...form.querySelectorAll('input[name=scope]:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value);
    if (!scopes.length) throw new ApiError(0, 'invalid_request', 'Choose at least one scope for the new key.');
    return { scopes };
  },
  extraColumns: ['Scopes'],
  extraCells: (k) => [names(k.scopes)],
});

// A playbook's re-enrollment policy: what a trigger does for a person enrolled in it before.
const REENROLLMENT = [
  ['when_inactive', 'When inactive', 'a new enrollment only when none is active (the default)'],
  ['once', 'Once', 'at most one enrollment per person, ever'],
  ['restart', 'Restart', 'an active enrollment is stopped and a new one started'],
];
const DEFAULT_REENROLLMENT = 'when_inactive';
const policyLabel = (value) => REENROLLMENT.find(([v]) => v === value)?.[1] ?? value;

// Outcomes of a dry run and the reasons of receipts and dry runs, in words.
const DRY_RUN_OUTCOMES = { start: 'Would start', stop: 'Would stop', restart: 'Would restart', none: 'No change' };
const REASONS = {
  trigger: 'the event is one of its triggers',
  exit: 'the event is one of its exits and the person is active',
  exit_and_trigger: 'the event is both an exit and a trigger',
  already_active: 'the person is already active in it',
  not_active: 'an exit, but the person is not active in it',
  suppressed: 'the person is suppressed',
  reenrollment_policy: 'its re-enrollment policy',
};
const reasonText = (reason, policy) =>
  reason === 'reenrollment_policy' && policy ? `its re-enrollment policy (${policyLabel(policy).toLowerCase()})` : (REASONS[reason] ?? reason);

async function playbooksPage(root) {
  let playbooks = [];
  let editing = null;
  const list = h('div', {}, loading());
  const listHeading = h('h2', { tabindex: '-1' }, 'Your playbooks');
  const formHeading = h('h2', { id: 'playbook-form-title' });
  const nameInput = h('input', { type: 'text', required: true, maxlength: '200', autocomplete: 'off' });
  const picker = h('div', { class: 'picker', id: 'trigger-picker' });
  const exitsInput = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const policies = h(
    'fieldset',
    { class: 'policies' },
    h('legend', {}, 'Re-enrollment'),
    h('p', { class: 'hint' }, 'What a trigger does for a person who was enrolled in this playbook before.'),
    REENROLLMENT.map(([value, label, what]) =>
      h(
        'div',
        { class: 'check' },
        h('input', { type: 'radio', name: 'reenrollment', value, id: `reenrollment-${value}`, 'aria-describedby': `reenrollment-${value}-hint` }),
        h('label', { for: `reenrollment-${value}` }, label),
        h('span', { class: 'hint', id: `reenrollment-${value}-hint` }, what),
      ),
    ),
  );
  const policyInputs = () => /** @type {HTMLInputElement[]} */ ([...policies.querySelectorAll('input[name=reenrollment]')]);
  const tester = h('div', { class: 'results' });
  const submit = h('button', { type: 'submit' });
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => edit(null) }, 'Cancel');
  const form = h(
    'form',
    { class: 'playbook-form', 'aria-labelledby': 'playbook-form-title', onsubmit: action(save) },
    formHeading,
    field('playbook-name', 'Name', nameInput),
    h(
      'fieldset',
      { 'aria-describedby': 'triggers-hint' },
      h('legend', {}, 'Triggers'),
      h('p', { class: 'hint', id: 'triggers-hint' }, 'An event with one of these names starts an enrollment. Only names this account has already sent are offered.'),
      picker,
      h('button', { type: 'button', class: 'secondary', onclick: action(loadCatalog) }, 'Refresh event names'),
    ),
    field('playbook-exits', 'Exits', exitsInput, 'Comma-separated event names that stop an enrollment, e.g. demo_booked, purchase. They need not have been sent yet.'),
    policies,
    h('div', { class: 'actions' }, submit, cancel),
  );

  // Every page of the catalog (at most its cap of names, 200 a page).
  async function loadCatalog() {
    const chosen = new Set(checkedTriggers());
    const items = [];
    let page;
    let cursor = null;
    do {
      page = await api('GET', `events/catalog?${new URLSearchParams({ limit: '200', ...(cursor ? { cursor } : {}) })}`);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor && picker.isConnected);
    if (!picker.isConnected) return;
    picker.replaceChildren(
      ...(items.length
        ? items.map(({ name }, i) =>
            h('div', { class: 'check' }, h('input', { type: 'checkbox', name: 'trigger', value: name, id: `trigger-${i}`, checked: chosen.has(name) }), h('label', { for: `trigger-${i}` }, name)),
          )
        : [h('p', { class: 'muted' }, 'No events received yet. Send one with an event token, then refresh the names.')]),
      ...present(
        page.full
          ? h(
              'p',
              { class: 'notice' },
              `This account has the most event names it may have (${page.maxNames}). An event with a name not listed here is still applied, and can stop a playbook as an exit, but its name is not added, so it cannot be a trigger.`,
              page.refused ? ` ${plural(page.refused.events, 'event')} so far had a name that was not added, the last “${page.refused.lastName}”.` : '',
            )
          : null,
      ),
    );
  }
  const checkedTriggers = () => [...picker.querySelectorAll('input[name=trigger]:checked')].map((i) => i.value);

  function edit(playbook) {
    editing = playbook;
    formHeading.textContent = playbook ? `Edit playbook “${playbook.name}”` : 'New playbook';
    submit.textContent = playbook ? 'Save changes' : 'Create playbook';
    cancel.hidden = !playbook;
    nameInput.value = playbook?.name ?? '';
    exitsInput.value = playbook?.exits.join(', ') ?? '';
    exitsInput.removeAttribute('aria-invalid');
    for (const box of picker.querySelectorAll('input[name=trigger]')) box.checked = playbook?.triggers.includes(box.value) ?? false;
    for (const radio of policyInputs()) radio.checked = radio.value === (playbook?.reenrollment ?? DEFAULT_REENROLLMENT);
    if (playbook) nameInput.focus();
  }

  async function save() {
    const exits = exitsInput.value.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = exits.find((n) => !EVENT_NAME.test(n));
    if (bad !== undefined) {
      exitsInput.setAttribute('aria-invalid', 'true');
      exitsInput.focus();
      throw new ApiError(0, 'invalid_request', `Exit “${bad}” is not a valid event name: 1 to 64 letters, digits, _ . : -`);
    }
    exitsInput.removeAttribute('aria-invalid');
    const reenrollment = policyInputs().find((r) => r.checked)?.value ?? DEFAULT_REENROLLMENT;
    const input = { name: nameInput.value.trim(), triggers: checkedTriggers(), exits, reenrollment };
    const saved = editing ? await api('PATCH', `playbooks/${editing.id}`, input) : await api('POST', 'playbooks', input);
    const verb = editing ? 'saved' : 'created';
    edit(null);
    await load();
    say(`Playbook “${saved.name}” ${verb}.`);
  }

  async function remove(playbook) {
    if (!confirm(`Delete playbook “${playbook.name}”? Its enrollments are deleted with it.`)) return;
    await api('DELETE', `playbooks/${playbook.id}`);
    if (editing?.id === playbook.id) edit(null);
    if (tester.dataset.playbook === playbook.id) tester.replaceChildren();
    await load();
    listHeading.focus(); // the row and its buttons are gone
    say(`Playbook “${playbook.name}” deleted.`);
  }

  async function load() {
    ({ items: playbooks } = await api('GET', 'playbooks'));
    if (!list.isConnected) return;
    const rows = playbooks.map((p) => [
      p.name,
      names(p.triggers),
      names(p.exits),
      policyLabel(p.reenrollment),
      when(p.updatedAt),
      h(
        'div',
        { class: 'row-actions' },
        h('button', { type: 'button', class: 'secondary', onclick: () => edit(p) }, 'Edit', hidden(` ${p.name}`)),
        h('button', { type: 'button', class: 'secondary', onclick: () => test(p) }, 'Test a trigger', hidden(` of ${p.name}`)),
        h('a', { href: `#/enrollments?playbook=${encodeURIComponent(p.id)}` }, 'Enrollments', hidden(` in ${p.name}`)),
        h('button', { type: 'button', class: 'danger', onclick: action(() => remove(p)) }, 'Delete', hidden(` ${p.name}`)),
      ),
    ]);
    list.replaceChildren(playbooks.length ? table('Playbooks', ['Name', 'Triggers', 'Exits', 'Re-enrollment', 'Updated', 'Actions'], rows) : h('p', {}, 'No playbooks yet.'));
  }

  // "Test a trigger": a dry run of one event (prefilled with one of the playbook's triggers) for
  // one person, answered by the playbook consumer's own planner; nothing is written.
  function test(playbook) {
    const eventInput = h('input', { type: 'text', required: true, autocomplete: 'off', spellcheck: 'false', value: playbook.triggers[0] ?? playbook.exits[0] ?? '', list: 'dry-run-names' });
    const emailInput = h('input', { type: 'text', inputmode: 'email', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'ada@example.com' });
    const result = h('div', { 'aria-live': 'polite' });
    const heading = h('h2', { tabindex: '-1', id: 'dry-run-title' }, `Test a trigger of “${playbook.name}”`);
    const run = action(async () => {
      const body = { event: eventInput.value.trim(), email: emailInput.value.trim() };
      const answer = await api('POST', 'events/dry-run', body);
      if (!result.isConnected) return;
      const policy = new Map(playbooks.map((p) => [p.id, p.reenrollment]));
      const mine = answer.playbooks.filter((p) => p.id === playbook.id);
      const others = answer.playbooks.filter((p) => p.id !== playbook.id);
      const rows = [...mine, ...others].map((p) => [p.name, h('span', { class: `badge ${p.outcome === 'none' ? 'stopped' : 'active'}` }, DRY_RUN_OUTCOMES[p.outcome] ?? p.outcome), reasonText(p.reason, policy.get(p.id))]);
      result.replaceChildren(
        ...present(
          h('h3', {}, 'If ', h('code', {}, answer.event), ' came now for ', answer.email),
          answer.catalog === 'new' ? h('p', {}, h('code', {}, answer.event), ' has never been sent: sending it would add it to the event names.') : null,
          answer.catalog === 'full'
            ? h('p', {}, h('code', {}, answer.event), ' is not one of the event names, which are at their maximum: sending it would be applied but not add it.')
            : null,
          rows.length
            ? table(`Dry run of ${answer.event}`, ['Playbook', 'Outcome', 'Why'], rows)
            : h('p', {}, 'No playbook opts in to ', h('code', {}, answer.event), ': it would change no enrollment.'),
          h('p', { class: 'muted' }, 'A dry run writes nothing: no enrollment, no event, no webhook.'),
        ),
      );
    });
    tester.dataset.playbook = playbook.id;
    tester.replaceChildren(
      heading,
      h('p', { class: 'hint' }, 'What this event would do for this person now, in every playbook that opts in to its name.'),
      h(
        'form',
        { class: 'filters', 'aria-labelledby': 'dry-run-title', onsubmit: run },
        field('dry-run-event', 'Event name', eventInput),
        h('datalist', { id: 'dry-run-names' }, [...playbook.triggers, ...playbook.exits].map((n) => h('option', { value: n }))),
        field('dry-run-email', 'Email', emailInput),
        h('button', { type: 'submit' }, 'Run dry run'),
        h('button', { type: 'button', class: 'secondary', onclick: () => { tester.replaceChildren(); delete tester.dataset.playbook; listHeading.focus(); } }, 'Close'),
      ),
      result,
    );
    emailInput.focus();
  }

  edit(null);
  root.append(
    ...pageHeading('Playbooks', 'A playbook starts an enrollment for a person when an event names one of its triggers, and stops it on one of its exits.'),
    listHeading,
    list,
    tester,
    form,
  );
  await Promise.all([load(), loadCatalog()]);
}

async function enrollmentsPage(root, params) {
  const placeholder = loading();
  root.append(...pageHeading('Enrollments', 'The people enrolled in a playbook, newest first.'), placeholder);
  const { items: playbooks } = await api('GET', 'playbooks');
  if (!root.isConnected) return;
  placeholder.remove();
  if (!playbooks.length) {
    root.append(h('p', {}, 'No playbooks yet. ', h('a', { href: '#/playbooks' }, 'Create one'), ' first.'));
    return;
  }
  const wanted = params.get('playbook');
  const playbookSelect = h('select', {}, playbooks.map((p) => h('option', { value: p.id, selected: p.id === wanted }, p.name)));
  const statusSelect = h(
    'select',
    {},
    [['', 'Any'], ['active', 'Active'], ['stopped', 'Stopped']].map(([value, label]) => h('option', { value, selected: value === (params.get('status') ?? '') }, label)),
  );
  const results = h('div', { class: 'results' });
  const show = action(async () => {
    const id = playbookSelect.value;
    const status = statusSelect.value;
    const query = new URLSearchParams({ playbook: id, ...(status ? { status } : {}) });
    history.replaceState(null, '', `#/enrollments?${query}`); // linkable, without re-rendering the page
    const name = playbookSelect.selectedOptions[0].textContent;
    const paged = pagedTable({
      caption: `Enrollments in ${name}`,
      columns: ['Email', 'Status', 'Started', 'Started by', 'Stopped', 'Stopped by'],
      empty: status ? `No ${status} enrollments in “${name}”.` : `No one is enrolled in “${name}” yet.`,
      fetchPage: (cursor) => api('GET', `playbooks/${encodeURIComponent(id)}/enrollments?${new URLSearchParams({ limit: '50', ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) })}`),
      row: (e) => [e.email, h('span', { class: `badge ${e.status}` }, e.status), when(e.startedAt), e.startedBy ? h('code', {}, e.startedBy) : '–', when(e.stoppedAt), e.stoppedBy ? h('code', {}, e.stoppedBy) : '–'],
    });
    results.replaceChildren(h('h2', {}, `Enrollments in “${name}”`), paged.element);
    await paged.load();
  });
  root.append(
    h('form', { class: 'filters', onsubmit: show }, field('enrollments-playbook', 'Playbook', playbookSelect), field('enrollments-status', 'Status', statusSelect), h('button', { type: 'submit' }, 'Show enrollments')),
    results,
  );
  if (wanted) await show();
}

async function eventsPage(root) {
  const paged = () =>
    pagedTable({
      caption: 'Recent events',
      columns: ['Received', 'Event', 'Email', 'Properties', 'Receipt'],
      empty: 'No events in the last 24 hours.',
      fetchPage: (cursor) => api('GET', `events/recent?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`),
      row: (e) => [
        when(e.receivedAt, '–', dateTimeSeconds),
        h('code', {}, e.event),
        e.email,
        properties(e.properties),
        h('a', { href: `#/receipt?event=${encodeURIComponent(e.eventId)}` }, 'Receipt', hidden(` of event ${e.eventId}`)),
      ],
    });
  let current = paged();
  const refresh = action(async () => {
    current = paged();
    results.replaceChildren(current.element);
    await current.load();
  });
  const results = h('div', {}, current.element);
  root.append(
    ...pageHeading('Recent events', 'Events received in the last 24 hours, newest first. Raw events are deleted after 24 hours; only their effects on playbooks and the catalog of names are kept.'),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: refresh }, 'Refresh')),
    results,
  );
  await current.load();
}
// The receipt of one event: what it did to the playbooks that opt in to its name, and why it
// left the others as they were. Looked up by the X-Event-Id; linked from the recent events.
async function receiptPage(root, params) {
  const idInput = h('input', { type: 'text', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: '5b0c6f7e-…', class: 'wide' });
  const results = h('div', { class: 'results' });
  const show = action(async () => {
    const eventId = idInput.value.trim();
    if (!eventId) throw new ApiError(0, 'invalid_request', 'Enter an event id: the X-Event-Id header of the answer to POST /events.');
    history.replaceState(null, '', `#/receipt?${new URLSearchParams({ event: eventId })}`); // linkable, without re-rendering
    results.replaceChildren();
    const receipt = await api('GET', `events/${encodeURIComponent(eventId)}`);
    if (!results.isConnected) return;
    results.replaceChildren(...receiptView(receipt));
  });
  root.append(
    ...pageHeading('Event receipt', 'What an accepted event did: the playbooks it started and stopped, and why it left each other playbook that opts in to its name as it was.'),
    h(
      'form',
      { class: 'filters', onsubmit: show },
      field('receipt-event', 'Event id', idInput, 'The X-Event-Id header of the answer to POST /events, or an eventId of a batch result. A receipt exists once the event is applied, usually within a second.'),
      h('button', { type: 'submit' }, 'Show receipt'),
    ),
    results,
  );
  const wanted = params.get('event');
  if (wanted) {
    idInput.value = wanted;
    await show();
  }
}

function receiptView(r) {
  const playbook = (p) => (p.name === null ? ['a deleted playbook ', h('code', {}, `${p.id.slice(0, 8)}…`)] : h('a', { href: `#/enrollments?playbook=${encodeURIComponent(p.id)}` }, p.name));
  const stoppedIds = new Set(r.stopped.map((p) => p.id));
  const startedIds = new Set(r.started.map((p) => p.id));
  const rows = [
    ...r.started.map((p) => [playbook(p), stoppedIds.has(p.id) ? 'Restarted: stopped and started again' : 'Started an enrollment', '–']),
    ...r.stopped.filter((p) => !startedIds.has(p.id)).map((p) => [playbook(p), 'Stopped the enrollment', '–']),
    ...r.unchanged.map((p) => [playbook(p), 'Left as it was', reasonText(p.reason, p.reason === 'reenrollment_policy' ? 'once' : null)]),
  ];
  return present(
    h('h2', {}, 'Receipt of event ', h('code', {}, r.eventId)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Event'),
      h('dd', {}, r.event === null ? 'not opted in to by any playbook' : h('code', {}, r.event)),
      h('dt', {}, 'Applied'),
      h('dd', {}, when(r.appliedAt, '–', dateTimeSeconds)),
    ),
    r.personErased ? h('p', { class: 'notice' }, 'The person has been erased since: the enrollments it changed no longer carry their email.') : null,
    rows.length
      ? table(`What event ${r.eventId} did`, ['Playbook', 'What it did', 'Why'], rows)
      : h('p', {}, 'No playbook opts in to this event’s name: it changed no enrollment.'),
  );
}

// Suppressions (a suppressed person's events start nothing) and erasure of a person, behind a
// confirm step. Emails stay out of the URL: they are typed, listed and sent, nothing else.
const SUPPRESSIONS_PAGE_SIZE = 25;
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

async function suppressionsPage(root) {
  const emailInput = h('input', { type: 'text', inputmode: 'email', autocomplete: 'off', spellcheck: 'false', placeholder: 'ada@example.com' });
  const listHeading = h('h2', { tabindex: '-1' }, 'Suppressed people');
  const list = h('div');
  let current;

  async function load() {
    current = pagedTable({
      caption: 'Suppressed people',
      columns: ['Email', 'Suppressed since', 'Actions'],
      empty: 'No one is suppressed.',
      fetchPage: (cursor) => api('GET', `suppressions?${new URLSearchParams({ limit: String(SUPPRESSIONS_PAGE_SIZE), ...(cursor ? { cursor } : {}) })}`),
      row: (s) => [s.email, when(s.createdAt), h('button', { type: 'button', class: 'secondary', onclick: action(() => lift(s.email)) }, 'Lift', hidden(` the suppression of ${s.email}`))],
    });
    list.replaceChildren(current.element);
    await current.load();
  }

  const suppress = action(async () => {
    const { status, data } = await call('POST', 'suppressions', { email: emailInput.value.trim() });
    emailInput.value = '';
    await load();
    const stopped = data.stoppedEnrollments ? `; ${plural(data.stoppedEnrollments, 'active enrollment')} stopped` : '; no active enrollment to stop';
    say(`${data.email} ${status === 201 ? 'suppressed' : 'was already suppressed'}${stopped}.`);
  });

  async function lift(email) {
    await api('DELETE', `suppressions/${encodeURIComponent(email)}`);
    await load();
    listHeading.focus(); // the row and its button are gone
    say(`The suppression of ${email} is lifted: their next trigger starts playbooks again.`);
  }

  // Erasure: the email typed, then a confirm step naming it; the counts the API answers.
  const eraseInput = h('input', { type: 'text', inputmode: 'email', autocomplete: 'off', spellcheck: 'false', placeholder: 'ada@example.com' });
  const eraseStep = h('div');
  const askErase = action(async () => {
    const email = eraseInput.value.trim();
    if (!email) throw new ApiError(0, 'invalid_request', 'Enter the email of the person to erase.');
    const title = h('h3', { id: 'erase-confirm-title' }, `Erase ${email}?`);
    const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => { eraseStep.replaceChildren(); eraseInput.focus(); } }, 'Cancel');
    const confirmButton = h('button', { type: 'button', class: 'danger-solid', onclick: action(() => erase(email)) }, `Erase ${email}`);
    const box = h(
      'section',
      { class: 'confirm-box', 'aria-labelledby': 'erase-confirm-title', tabindex: '-1' },
      title,
      h('p', {}, 'Their active enrollments stop; their email is replaced by a keyed hash in enrollments, effects and webhook deliveries (so counts stay right), and their suppression, raw events, visitor identity links and the page-view data of the site visitors and imported visitors tied to them are deleted. This cannot be undone.'),
      h('div', { class: 'actions' }, confirmButton, cancel),
    );
    eraseStep.replaceChildren(box);
    cancel.focus();
  });
  async function erase(email) {
    const counts = await api('DELETE', `persons/${encodeURIComponent(email)}`);
    eraseInput.value = '';
    const t = table(
      `What erasing ${email} did`,
      ['What', 'Count'],
      [
        ['Active enrollments stopped', String(counts.stoppedEnrollments)],
        ['Enrollments kept with the email hashed', String(counts.hashedEnrollments)],
        ['Playbook effects kept with the email hashed', String(counts.hashedEffects)],
        ['Suppressions deleted', String(counts.deletedSuppressions)],
        ['Raw events deleted', String(counts.deletedRawEvents)],
        ['Webhook deliveries kept with the email hashed', String(counts.hashedDeliveries)],
        // Site visitors once tied to the person (from the visitors service, since the site tag).
        ...(typeof counts.deletedVisitors === 'number' ? [['Site visitors’ page-view data deleted', String(counts.deletedVisitors)]] : []),
        ...(typeof counts.deletedVisitorLinks === 'number' ? [['Visitor identity links deleted', String(counts.deletedVisitorLinks)]] : []),
        // Visitors imported for the account (glimpse import visitors), in the enrichment service.
        ...(typeof counts.deletedImportedVisitors === 'number' ? [['Imported visitors deleted', String(counts.deletedImportedVisitors)]] : []),
        ...(typeof counts.hashedImportedVisitors === 'number' ? [['Imported visitors’ page views kept with the email hashed', String(counts.hashedImportedVisitors)]] : []),
      ],
      [1],
    );
    t.classList.add('narrow');
    const heading = h('h3', { tabindex: '-1' }, `${email} erased`);
    eraseStep.replaceChildren(heading, t);
    heading.focus();
    say(`${email} erased.`);
    if (counts.deletedSuppressions) await load();
  }

  root.append(
    ...pageHeading('Suppressions', 'A suppressed person’s events are still accepted, but start no playbook (exits still stop). Suppressing someone stops their active enrollments now.'),
    h('form', { class: 'filters', onsubmit: suppress }, field('suppress-email', 'Email to suppress', emailInput), h('button', { type: 'submit' }, 'Suppress')),
    h('h2', {}, 'Erase a person'),
    h('p', { class: 'intro' }, 'For a request to be forgotten: removes the email from every playbook table, the recent events and the site visitors tied to it.'),
    h('form', { class: 'filters', onsubmit: askErase }, field('erase-email', 'Email to erase', eraseInput), h('button', { type: 'submit', class: 'danger' }, 'Erase…')),
    eraseStep,
    listHeading,
    list,
  );
  await load();
}

function properties(props) {
  const entries = Object.entries(props ?? {});
  return entries.length ? h('code', { class: 'props' }, entries.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')) : '–';
}

async function usagePage(root) {
  const day = (d) => d.toISOString().slice(0, 10);
  const today = new Date();
  const from = h('input', { type: 'date', required: true, value: day(new Date(today.getTime() - 29 * 86_400_000)) });
  const to = h('input', { type: 'date', required: true, value: day(today) });
  const results = h('div', {}, loading());
  const show = action(async () => {
    const { items, totals } = await api('GET', `usage?${new URLSearchParams({ from: from.value, to: to.value })}`);
    if (!results.isConnected) return;
    const days = items.filter((u) => u.identityMatches > 0 || u.enrichedRecords > 0);
    const t = table('Usage by day (UTC)', ['Day', 'Identity matches', 'Enriched records'], days.map((u) => [u.day, String(u.identityMatches), String(u.enrichedRecords)]), [1, 2]);
    t.classList.add('narrow');
    t.append(h('tfoot', {}, tableRow(['Total', String(totals.identityMatches), String(totals.enrichedRecords)], [1, 2])));
    const note = days.length ? 'Days without lookups are left out.' : 'No billable lookups in this period.';
    results.replaceChildren(h('p', { class: 'muted' }, note), t);
  });
  root.append(
    ...pageHeading('Usage', 'Billable lookups per day (UTC): identity matches and enriched records.'),
    h('form', { class: 'filters', onsubmit: show }, field('usage-from', 'From', from), field('usage-to', 'To', to), h('button', { type: 'submit' }, 'Show usage')),
    results,
  );
  await show();
}

// Webhook endpoints: subscribe a URL (its signing secret is shown once), enable, disable, rotate
// the secret, delete; and each endpoint's deliveries with every attempt.
const WEBHOOK_EVENTS = [
  ['enrollment.started', 'a playbook enrollment started'],
  ['enrollment.stopped', 'a playbook enrollment stopped'],
  ['visitor.identified', 'a site visitor was identified (it carries the person’s email: off unless chosen)', false],
];

async function webhooksPage(root, params) {
  const slot = h('div');
  const list = h('div', {}, loading());
  const listHeading = h('h2', { tabindex: '-1' }, 'Your endpoints');
  const deliveries = h('div', { class: 'results' });
  const urlInput = h('input', { type: 'url', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'https://example.com/glimpse-hooks' });
  const createButton = h('button', { type: 'submit' }, 'Add endpoint');
  const form = h(
    'form',
    { class: 'create', onsubmit: action(create) },
    field('webhook-url', 'Endpoint URL', urlInput, 'Glimpse POSTs each event here, signed per Standard Webhooks. Private and internal addresses are refused.'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Events to send'),
      WEBHOOK_EVENTS.map(([type, what, byDefault = true]) =>
        h('div', { class: 'check' }, h('input', { type: 'checkbox', name: 'webhook-event', value: type, id: `event-${type}`, checked: byDefault }), h('label', { for: `event-${type}` }, h('code', {}, type), ` — ${what}`)),
      ),
    ),
    createButton,
  );

  async function create() {
    const events = [...form.querySelectorAll('input[name=webhook-event]:checked')].map((i) => i.value);
    if (!events.length) throw new ApiError(0, 'invalid_request', 'Choose at least one event to send.');
    const created = await api('POST', 'webhooks', { url: urlInput.value.trim(), events });
    form.reset();
    slot.replaceChildren(secretBox(`Signing secret of ${created.url}`, created.secret, () => createButton.focus()));
    slot.firstElementChild.focus();
    await load();
  }

  const status = (w) =>
    w.enabled
      ? [h('span', { class: 'badge active' }, 'enabled'), w.failingSince ? [' failing since ', when(w.failingSince)] : '']
      : [h('span', { class: 'badge stopped' }, 'disabled'), ' ', w.disabledReason === 'failing' ? ['after failing continuously, ', when(w.disabledAt)] : ['by hand, ', when(w.disabledAt)]];

  async function load() {
    const { items } = await api('GET', 'webhooks');
    if (!list.isConnected) return;
    const rows = items.map((w) => [
      h('code', {}, w.url),
      names(w.events),
      status(w),
      h(
        'div',
        { class: 'row-actions' },
        h('a', { href: `#/webhooks?endpoint=${encodeURIComponent(w.id)}` }, 'Deliveries', hidden(` to ${w.url}`)),
        h('button', { type: 'button', class: 'secondary', onclick: action(() => setEnabled(w, !w.enabled)) }, w.enabled ? 'Disable' : 'Re-enable', hidden(` ${w.url}`)),
        h('button', { type: 'button', class: 'secondary', onclick: action(() => rotate(w)) }, 'Rotate secret', hidden(` of ${w.url}`)),
        h('button', { type: 'button', class: 'danger', onclick: action(() => remove(w)) }, 'Delete', hidden(` ${w.url}`)),
      ),
    ]);
    list.replaceChildren(items.length ? table('Webhook endpoints', ['URL', 'Events', 'Status', 'Actions'], rows) : h('p', {}, 'No endpoints yet.'));
  }

  async function setEnabled(w, enabled) {
    await api('PATCH', `webhooks/${w.id}`, { enabled });
    await load();
    listHeading.focus();
    say(enabled ? `Endpoint ${w.url} enabled: what was pending is sent again now.` : `Endpoint ${w.url} disabled.`);
  }
  async function rotate(w) {
    if (!confirm(`Rotate the signing secret of ${w.url}? The old secret keeps signing alongside the new one for 24 hours.`)) return;
    const rotated = await api('POST', `webhooks/${w.id}/rotate-secret`);
    slot.replaceChildren(secretBox(`New signing secret of ${w.url}`, rotated.secret, () => listHeading.focus()));
    slot.firstElementChild.focus();
  }
  async function remove(w) {
    if (!confirm(`Delete the endpoint ${w.url}? Its pending deliveries are dropped.`)) return;
    await api('DELETE', `webhooks/${w.id}`);
    await load();
    listHeading.focus();
    say(`Endpoint ${w.url} deleted.`);
  }

  const attemptText = (a) => `${a.succeeded ? 'ok' : 'failed'}${a.responseStatus ? ` ${a.responseStatus}` : ''}${a.error && !a.succeeded ? ` (${a.error})` : ''}, ${a.durationMs} ms`;
  async function showDeliveries(endpointId) {
    const endpoint = await api('GET', `webhooks/${encodeURIComponent(endpointId)}`);
    const paged = pagedTable({
      caption: `Deliveries to ${endpoint.url}`,
      columns: ['Scheduled', 'Event', 'Status', 'Attempts', 'Next attempt'],
      empty: 'Nothing delivered to this endpoint yet.',
      fetchPage: (cursor) => api('GET', `webhooks/${encodeURIComponent(endpointId)}/deliveries?${new URLSearchParams({ limit: '50', ...(cursor ? { cursor } : {}) })}`),
      row: (d) => [
        when(d.createdAt, '–', dateTimeSeconds),
        h('code', {}, d.type),
        h('span', { class: `badge ${d.status === 'delivered' ? 'active' : 'stopped'}` }, d.status),
        d.attempts.length ? h('ol', { class: 'attempts' }, d.attempts.map((a) => h('li', {}, when(a.at, '–', dateTimeSeconds), ': ', attemptText(a)))) : 'none yet',
        d.status === 'pending' && !endpoint.enabled ? 'paused while the endpoint is disabled' : when(d.nextAttemptAt, '–', dateTimeSeconds),
      ],
    });
    const refresh = h('button', { type: 'button', class: 'secondary', onclick: action(() => showDeliveries(endpointId)) }, 'Refresh deliveries');
    deliveries.replaceChildren(h('h2', {}, 'Deliveries to ', h('code', {}, endpoint.url)), h('div', { class: 'actions' }, refresh), paged.element);
    await paged.load();
  }

  root.append(
    ...pageHeading('Webhooks', 'Glimpse sends each playbook start and stop to your endpoints, signed with the endpoint’s secret, and retries failures for 24 hours.'),
    form,
    slot,
    listHeading,
    list,
    deliveries,
  );
  const wanted = params.get('endpoint');
  await Promise.all([load(), wanted ? showDeliveries(wanted) : undefined]);
}

// ---- sites, their traffic and visitors -------------------------------------------------------

// A site's key may collect page views from its origins only; the tag is one script element.
const QUEUE_STUB = 'window.glimpse = window.glimpse || function () { (glimpse.q = glimpse.q || []).push(arguments); };';
const FIRST_VIEW_POLL_MS = 5_000;
const TRAFFIC_POLL_MS = 60_000;
const VISITORS_POLL_MS = 10_000;
const VISITORS_LIMIT = 50;

// Origins typed one per line, or separated by commas or spaces (an origin has none); event names
// by commas or lines only, so a name typed with a space is refused rather than split in two.
const splitList = (text, separators = /[\s,]+/) => text.split(separators).map((s) => s.trim()).filter(Boolean);

function siteFields(prefix, site) {
  const name = h('input', { type: 'text', required: true, maxlength: '100', autocomplete: 'off', value: site?.name ?? '' });
  const origins = h('textarea', { rows: '3', required: true, spellcheck: 'false', autocomplete: 'off', placeholder: 'https://www.example.com' });
  origins.value = site?.origins.join('\n') ?? '';
  const events = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'signup_started, demo_requested', value: site?.track_events.join(', ') ?? '' });
  const captureForms = h('input', { type: 'checkbox', id: `${prefix}-capture-forms`, checked: site?.capture_forms === true, 'aria-describedby': `${prefix}-capture-forms-hint` });
  const consent = h(
    'select',
    {},
    h('option', { value: 'implied', selected: site?.consent !== 'required' }, 'Implied: a visitor id at once'),
    h('option', { value: 'required', selected: site?.consent === 'required' }, 'Required: cookieless until the visitor consents'),
  );
  const honorGpc = h('input', { type: 'checkbox', id: `${prefix}-honor-gpc`, checked: site?.honor_gpc !== false, 'aria-describedby': `${prefix}-honor-gpc-hint` });
  const check = (input, label, hint) =>
    h('div', { class: 'check' }, input, h('div', {}, h('label', { for: input.id }, label), h('p', { class: 'hint', id: `${input.id}-hint` }, hint)));
  return {
    elements: [
      field(`${prefix}-name`, 'Name', name),
      field(`${prefix}-origins`, 'Origins', origins, 'One per line, scheme and host (and port if not the default), e.g. https://www.example.com. Page views from any other origin are refused.'),
      field(`${prefix}-events`, 'Events the browser may track', events, 'Comma-separated names the tag may send with glimpse(\'track\', name, properties); others are dropped. Empty: none.'),
      h(
        'fieldset',
        { class: 'policies' },
        h('legend', {}, 'Identification and privacy'),
        check(captureForms, 'Capture forms', 'When a visitor submits a form with an email field, identify them by it (method “form”). Password fields and fields marked data-glimpse-ignore are never sent.'),
        field(`${prefix}-consent`, 'Consent', consent, 'Required: no cookie and no storage until glimpse(\'consent\', \'granted\'); page views are counted cookieless until then.'),
        check(honorGpc, 'Honour Global Privacy Control', 'A browser sending the GPC signal stays cookieless and is never identified.'),
      ),
    ],
    read() {
      const trackEvents = splitList(events.value, /[\n,]+/);
      const bad = trackEvents.find((n) => !EVENT_NAME.test(n));
      if (bad !== undefined) {
        events.setAttribute('aria-invalid', 'true');
        events.focus();
        throw new ApiError(0, 'invalid_request', `“${bad}” is not a valid event name: 1 to 64 letters, digits, _ . : -`);
      }
      events.removeAttribute('aria-invalid');
      return { name: name.value.trim(), origins: splitList(origins.value), track_events: trackEvents, capture_forms: captureForms.checked, consent: consent.value, honor_gpc: honorGpc.checked };
    },
    focus: () => name.focus(),
  };
}

async function sitesPage(root, params) {
  const detail = h('div');
  const sitesList = h('div', {}, loading());
  const listHeading = h('h2', { tabindex: '-1' }, 'Your sites');
  const create = siteFields('site', null);
  const form = h('form', { class: 'site-form', onsubmit: action(add) }, h('h2', {}, 'Add a site'), ...create.elements, h('button', { type: 'submit' }, 'Add site'));

  async function add() {
    const site = await api('POST', 'sites', create.read());
    form.reset();
    history.replaceState(null, '', `#/sites?site=${encodeURIComponent(site.id)}`);
    await Promise.all([load(), show(site)]);
    say(`Site “${site.name}” added: install its tag below.`);
  }

  async function load() {
    const { items } = await api('GET', 'sites');
    if (!sitesList.isConnected) return;
    const stats = items.map((s) => siteStats(s));
    const rows = items.map((s, i) => [
      s.name,
      h('code', {}, s.key),
      h('ul', { class: 'plain' }, s.origins.map((o) => h('li', {}, h('code', {}, o)))),
      names(s.track_events),
      siteSettings(s),
      stats[i].element,
      when(s.createdAt),
      h(
        'div',
        { class: 'row-actions' },
        h('a', { href: `#/sites?site=${encodeURIComponent(s.id)}` }, 'Install and traffic', hidden(` of ${s.name}`)),
        h('button', { type: 'button', class: 'secondary', onclick: () => edit(s) }, 'Edit', hidden(` ${s.name}`)),
        h('button', { type: 'button', class: 'danger', onclick: action(() => remove(s)) }, 'Delete', hidden(` ${s.name}`)),
      ),
    ]);
    sitesList.replaceChildren(items.length ? h('div', { class: 'table-scroll' }, compact(table('Sites', ['Name', 'Site key', 'Origins', 'Tracked events', 'Identification', 'Stats (24 h)', 'Created', 'Actions'], rows))) : h('p', {}, 'No sites yet: add one above to get its tag.'));
    await Promise.all(stats.map((x) => x.load()));
  }

  function edit(site) {
    const fields = siteFields('edit-site', site);
    const heading = h('h2', { id: 'edit-site-title' }, `Edit “${site.name}”`);
    const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => { detail.replaceChildren(); listHeading.focus(); } }, 'Cancel');
    const save = action(async () => {
      const saved = await api('PATCH', `sites/${encodeURIComponent(site.id)}`, fields.read());
      await Promise.all([load(), show(saved)]);
      say(`Site “${saved.name}” saved.`);
    });
    detail.replaceChildren(h('form', { class: 'site-form', 'aria-labelledby': 'edit-site-title', onsubmit: save }, heading, ...fields.elements, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save changes'), cancel)));
    fields.focus();
  }

  async function remove(site) {
    if (!confirm(`Delete the site “${site.name}”? Its key stops collecting at once, and its visitors’ page views and traffic are deleted. This cannot be undone.`)) return;
    await api('DELETE', `sites/${encodeURIComponent(site.id)}`);
    if (detail.dataset.site === site.id) detail.replaceChildren();
    await load();
    listHeading.focus();
    say(`Site “${site.name}” deleted.`);
  }

  async function show(site) {
    const section = installSection(site);
    detail.dataset.site = site.id;
    detail.replaceChildren(section);
    section.querySelector('h2').focus();
  }

  root.append(
    ...pageHeading('Sites', 'A site is a website you put the Glimpse tag on. Its key is public by design: it can only send page views, and only from the site’s origins.'),
    form,
    detail,
    listHeading,
    sitesList,
  );
  const wanted = params.get('site');
  await Promise.all([load(), wanted ? api('GET', `sites/${encodeURIComponent(wanted)}`).then(show) : undefined]);
}

// A site's identification settings as short phrases, in the list.
function siteSettings(site) {
  return h(
    'div',
    { class: 'settings' },
    h('div', {}, site.capture_forms ? 'Forms captured' : 'Forms not captured'),
    h('div', {}, site.consent === 'required' ? 'Consent required' : 'Consent implied'),
    h('div', {}, site.honor_gpc === false ? 'GPC ignored' : 'GPC honoured'),
  );
}

// "Stats (24 h)": one line per site, filled in once the visitors service answers; a failure
// stays in its cell (one site's stats must not hide the list).
function siteStats(site) {
  const element = h('span', { class: 'muted site-stats', 'data-site': site.id }, '…');
  async function load() {
    try {
      const st = await api('GET', `sites/${encodeURIComponent(site.id)}/stats`);
      element.className = 'site-stats';
      element.replaceChildren(`${plural(st.page_views, 'page view')}, ${plural(st.visitors, 'visitor')}, ${st.identified_visitors} identified, ${plural(st.bots, 'bot page view')}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw err;
      element.replaceChildren('unavailable');
      element.title = err instanceof ApiError ? err.message : 'unavailable';
    }
  }
  return { element, load };
}

// The install snippet, the first-page-view check and the traffic chart of one site.
function installSection(site) {
  const snippet = h('code', { id: 'install-snippet' }, site.snippet.html);
  const check = h('p', { class: 'check-status pending', id: 'first-view' }, 'Waiting for the first page view…');
  const chart = h('div', { class: 'chart-wrap' }, loading());
  const section = h(
    'section',
    { class: 'install', 'aria-labelledby': 'install-title' },
    h('h2', { id: 'install-title', tabindex: '-1' }, `Install “${site.name}”`),
    h('p', {}, 'Paste this tag into the ', h('code', {}, '<head>'), ' of every page of the site. It needs no inline script, so it works under a strict Content Security Policy.'),
    h('pre', { class: 'snippet' }, snippet),
    h('div', { class: 'actions' }, copyButton('Copy snippet', snippet)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Site key'),
      h('dd', {}, h('code', {}, site.key)),
      h('dt', {}, 'Integrity (SRI)'),
      h('dd', {}, h('code', { class: 'wrap' }, site.snippet.integrity)),
      h('dt', {}, 'Origins'),
      h('dd', {}, names(site.origins)),
      h('dt', {}, 'Identification'),
      h('dd', {}, siteSettings(site)),
    ),
    h('p', { class: 'hint' }, 'The integrity hash pins this version of the tag: when Glimpse updates the tag, copy the snippet again from here.'),
    h('h3', {}, 'Optional: calls before the tag loads'),
    h(
      'p',
      {},
      'To call ',
      h('code', {}, "glimpse('identify', …)"),
      ' or ',
      h('code', {}, "glimpse('track', …)"),
      ' before the tag has loaded, define this queue first in one of your own script files; the tag runs the queued calls when it loads.',
    ),
    h('pre', { class: 'snippet' }, h('code', {}, QUEUE_STUB)),
    h('h3', {}, 'Is it installed?'),
    h('div', { role: 'status', 'aria-live': 'polite' }, check),
    h('h2', {}, 'Traffic, last 24 hours'),
    chart,
  );
  let received = false;
  poll(
    section,
    async () => {
      const traffic = await api('GET', `sites/${encodeURIComponent(site.id)}/traffic`);
      if (!section.isConnected) return false;
      if (traffic.firstPageViewAt && !received) {
        received = true;
        check.className = 'check-status ok';
        check.replaceChildren('✓ First page view received ', when(traffic.firstPageViewAt), '.');
      } else if (!received) {
        check.replaceChildren(`Waiting for the first page view… Open a page of the site with the tag on it; this checks every ${FIRST_VIEW_POLL_MS / 1000} seconds.`);
      }
      chart.replaceChildren(...trafficChart(traffic.hours));
    },
    () => (received ? TRAFFIC_POLL_MS : FIRST_VIEW_POLL_MS),
  );
  return section;
}

// ---- the traffic chart: inline SVG built node by node (no markup strings, no style attributes) ----

const SVG_NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  el.append(...children);
  return el;
}

// The top of the y axis and its step: 1, 2 or 5 times a power of ten, about four steps.
function yScale(max) {
  if (max <= 4) return { top: Math.max(max, 1), step: 1 };
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((v) => v >= rough);
  return { top: step * Math.ceil(max / step), step };
}

const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const plainNumber = new Intl.NumberFormat();

/** @param {{hour: string, pageViews: number, visitors: number, bots: number}[]} hours */
function trafficChart(hours) {
  const W = 720;
  const H = 260;
  const pad = { left: 48, right: 16, top: 24, bottom: 44 };
  const plotW = W - pad.left - pad.right;
  const plotH = H - pad.top - pad.bottom;
  const slot = plotW / Math.max(hours.length, 1);
  const { top, step } = yScale(Math.max(0, ...hours.map((x) => Math.max(x.pageViews, x.visitors))));
  const y = (v) => pad.top + plotH - (v / top) * plotH;
  const cx = (i) => pad.left + slot * i + slot / 2;
  const range = (x) => `${hourLabel.format(new Date(x.hour))}–${hourLabel.format(new Date(Date.parse(x.hour) + 3_600_000))}`;

  const svg = s('svg', { class: 'traffic-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': 'traffic-summary' });
  const grid = s('g', { class: 'grid' });
  for (let v = 0; v <= top; v += step) {
    grid.append(
      s('line', { x1: pad.left, x2: W - pad.right, y1: y(v), y2: y(v) }),
      s('text', { x: pad.left - 8, y: y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, plainNumber.format(v)),
    );
  }
  grid.append(s('text', { x: pad.left, y: pad.top - 10, 'text-anchor': 'start', class: 'axis-title' }, 'page views and visitors per hour'));
  const xAxis = s('g', { class: 'x-axis' }, s('line', { x1: pad.left, x2: W - pad.right, y1: y(0), y2: y(0) }));
  hours.forEach((x, i) => {
    if ((hours.length - 1 - i) % 3 === 0) xAxis.append(s('text', { x: cx(i), y: H - pad.bottom + 18, 'text-anchor': 'middle' }, hourLabel.format(new Date(x.hour))));
  });
  xAxis.append(s('text', { x: pad.left + plotW / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-title' }, 'hour starting (your time)'));

  const bars = s('g', { class: 'bars' });
  hours.forEach((x, i) => {
    const barW = slot * 0.6;
    bars.append(
      s(
        'rect',
        { class: 'bar', x: cx(i) - barW / 2, y: y(x.pageViews), width: barW, height: y(0) - y(x.pageViews), 'data-hour': x.hour, 'data-page-views': x.pageViews },
        s('title', {}, `${range(x)}: ${plural(x.pageViews, 'page view')}, ${plural(x.visitors, 'visitor')}${x.bots ? `, ${plural(x.bots, 'bot page view')} filtered` : ''}`),
      ),
    );
  });
  const points = hours.map((x, i) => `${cx(i)},${y(x.visitors)}`).join(' ');
  const visitors = s('g', { class: 'visitors-line' }, s('polyline', { points }), ...hours.map((x, i) => s('circle', { cx: cx(i), cy: y(x.visitors), r: x.visitors ? 3.5 : 2, 'data-visitors': x.visitors })));
  svg.append(grid, bars, visitors, xAxis);

  const total = (key) => hours.reduce((sum, x) => sum + x[key], 0);
  const busiest = Math.max(0, ...hours.map((x) => x.visitors));
  const summary = h(
    'p',
    { id: 'traffic-summary', class: 'chart-summary' },
    total('pageViews') ? `${plural(total('pageViews'), 'page view')} in the last 24 hours; at most ${plural(busiest, 'visitor')} in an hour.` : 'No page views in the last 24 hours.',
    total('bots') ? ` ${plural(total('bots'), 'bot page view')} filtered out.` : '',
  );
  const legend = h(
    'ul',
    { class: 'legend' },
    h('li', {}, h('span', { class: 'swatch page-views', 'aria-hidden': 'true' }), 'Page views (bars)'),
    h('li', {}, h('span', { class: 'swatch visitors', 'aria-hidden': 'true' }), 'Visitors (line)'),
  );
  const asTable = h(
    'details',
    {},
    h('summary', {}, 'Traffic as a table'),
    table('Traffic per hour, last 24 hours', ['Hour', 'Page views', 'Visitors', 'Bots'], hours.map((x) => [range(x), String(x.pageViews), String(x.visitors), String(x.bots)]), [1, 2, 3]),
  );
  return [summary, svg, legend, asTable];
}

// Seconds as people read them: 45 s, 3 min 05 s, 1 h 02 min.
function duration(seconds) {
  const secs = Math.max(0, Math.round(seconds));
  if (secs < 60) return `${secs} s`;
  if (secs < 3600) return `${Math.floor(secs / 60)} min ${String(secs % 60).padStart(2, '0')} s`;
  return `${Math.floor(secs / 3600)} h ${String(Math.floor((secs % 3600) / 60)).padStart(2, '0')} min`;
}

// Visitors' times are recent: day and time, no year, so the table fits the page.
const recentTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

const compact = (t) => (t.classList.add('compact'), t);

const VISITOR_FILTERS = [
  ['all', 'All visitors', null],
  ['identified', 'Identified', 'true'],
  ['anonymous', 'Anonymous', 'false'],
];
const METHOD_NAMES = { identify: 'identify call', form: 'form submitted', email_link: 'email link', ip_company: 'company from IP', import: 'import' };
const methodName = (method) => METHOD_NAMES[method] ?? method;
const confidence = (c) => (typeof c === 'number' ? c.toFixed(2) : '–');
const visitorHref = (id, filter) => `#/visitors?${new URLSearchParams({ ...(filter !== 'all' ? { filter } : {}), visitor: id })}`;

async function visitorsPage(root, params) {
  const results = h('div', {}, loading());
  const detail = h('div');
  const updated = h('p', { class: 'muted', id: 'visitors-updated' });
  const wantedFilter = params.get('filter');
  let filter = VISITOR_FILTERS.some(([v]) => v === wantedFilter) ? wantedFilter : 'all';
  // The filter is kept in the address, so a reload or a visitor's Close link comes back to it.
  const filterSelect = h(
    'select',
    {
      onchange: action(async () => {
        filter = filterSelect.value;
        history.replaceState(null, '', filter === 'all' ? '#/visitors' : `#/visitors?filter=${filter}`);
        detail.replaceChildren();
        results.replaceChildren(loading());
        await load();
      }),
    },
    VISITOR_FILTERS.map(([value, label]) => h('option', { value, selected: value === filter }, label)),
  );
  const columns = ['Visitor', 'Email', 'Page views', 'Sessions', 'Engaged time', 'Last page', 'First seen', 'Last seen', 'Identified by'];
  const row = (v) => [
    h('a', { href: visitorHref(v.id, filter), 'aria-label': `Open visitor ${v.id}` }, h('code', {}, v.id)),
    v.email ?? (v.company ? ['anonymous, ', h('span', { class: 'company' }, typeof v.company === 'string' ? v.company : v.company.name)] : h('span', { class: 'muted' }, 'anonymous')),
    String(v.pageViews),
    String(v.sessions),
    duration(v.engagedSeconds),
    v.lastPage ? h('code', { class: 'wrap' }, v.lastPage) : '–',
    when(v.firstSeen, '–', recentTime),
    when(v.lastSeen, '–', recentTime),
    v.identifiedBy ? [v.identifiedBy.method, ', ', when(v.identifiedBy.at, '–', recentTime), typeof v.identifiedBy.confidence === 'number' ? `, confidence ${confidence(v.identifiedBy.confidence)}` : ''] : '–',
  ];
  async function load() {
    const identified = VISITOR_FILTERS.find(([v]) => v === filter)[2];
    const query = new URLSearchParams({ limit: String(VISITORS_LIMIT), ...(identified ? { identified } : {}) });
    const { items } = await api('GET', `visitors?${query}`);
    if (!results.isConnected) return false;
    const empty = filter === 'all' ? 'No visitors yet. Install a site’s tag (Sites) and they appear here.' : `No ${filter} visitors yet.`;
    results.replaceChildren(items.length ? h('div', { class: 'table-scroll' }, compact(table('Latest visitors', columns, items.map(row), [2, 3, 4]))) : h('p', {}, empty));
    updated.replaceChildren('Updated ', when(new Date().toISOString(), '–', dateTimeSeconds), `; refreshes every ${VISITORS_POLL_MS / 1000} seconds while this tab is shown.`);
  }
  const poller = poll(results, load, () => VISITORS_POLL_MS);
  root.append(
    ...pageHeading('Visitors', `The ${VISITORS_LIMIT} latest visitors seen by your sites’ tags: identified ones first, then the most recently seen. Open one to see why it was identified.`),
    detail,
    h('div', { class: 'filters' }, field('visitors-filter', 'Show', filterSelect)),
    h('div', { class: 'actions' }, updated, h('button', { type: 'button', class: 'secondary', onclick: action(async () => poller.now()) }, 'Refresh now')),
    results,
  );
  const wanted = params.get('visitor');
  if (wanted) await showVisitor(detail, wanted, filter);
}

// One visitor: what it did, and every identification with its method, confidence, time and the page that triggered it.
async function showVisitor(slot, id, filter) {
  slot.replaceChildren(loading());
  const v = await api('GET', `visitors/${encodeURIComponent(id)}`);
  if (!slot.isConnected) return;
  const pages = v.pages ?? [];
  const sessions = v.sessionList ?? [];
  const history = v.identityHistory ?? [];
  const identifiedBy = v.identifiedBy;
  // The newest person link's page: the reason line says where the match happened.
  const trigger = identifiedBy && identifiedBy.method !== 'ip_company' ? history.find((l) => l.method === identifiedBy.method && l.at === identifiedBy.at) : null;
  const company = typeof v.company === 'string' ? { name: v.company } : v.company; // {name, domain, at} | null
  const consent = typeof v.consent === 'string' ? { state: v.consent, at: null } : (v.consent ?? { state: 'implied', at: null });
  const close = h('a', { href: filter === 'all' ? '#/visitors' : `#/visitors?filter=${filter}` }, 'Close');
  const section = h(
    'section',
    { class: 'visitor-detail install', 'aria-labelledby': 'visitor-title' },
    h('h2', { id: 'visitor-title', tabindex: '-1' }, 'Visitor ', h('code', {}, v.id ?? id)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Email'),
      h('dd', { id: 'visitor-email' }, v.email ?? h('span', { class: 'muted' }, 'not identified')),
      h('dt', {}, 'Identified by'),
      h('dd', { id: 'visitor-reason' }, identifiedBy ? reason({ ...identifiedBy, sourcePath: trigger?.sourcePath }) : 'not identified'),
      h('dt', {}, 'Company (from IP)'),
      h('dd', { id: 'visitor-company' }, company?.name ? [company.name, company.domain ? [' (', h('code', {}, company.domain), ')'] : '', company.at ? [', ', when(company.at)] : ''] : '–'),
      h('dt', {}, 'Consent'),
      h('dd', { id: 'visitor-consent' }, consent.state, consent.at ? [' since ', when(consent.at)] : '', v.cookieless ? ' (cookieless)' : ''),
      h('dt', {}, 'Page views'),
      h('dd', {}, String(v.pageViews ?? pages.length)),
      h('dt', {}, 'Engaged time'),
      h('dd', {}, duration(v.engagedSeconds ?? 0)),
      h('dt', {}, 'First seen'),
      h('dd', {}, when(v.firstSeen)),
      h('dt', {}, 'Last seen'),
      h('dd', {}, when(v.lastSeen)),
    ),
    h('h3', {}, 'Identity history'),
    history.length
      ? table(
          'Identity history, newest first',
          ['Email', 'Method', 'Confidence', 'When', 'Triggered on page'],
          history.map((l) => [l.email, methodName(l.method), confidence(l.confidence), when(l.at), l.sourcePath ? h('code', { class: 'wrap' }, l.sourcePath) : '–']),
          [2],
        )
      : h('p', { class: 'muted' }, 'Never identified by a person method.'),
    h('h3', {}, 'Sessions'),
    sessions.length
      ? table(
          'Sessions, newest first',
          ['Session', 'Started', 'Last activity', 'Page views', 'Landing page', 'Referrer', 'Campaign'],
          sessions.map((x) => [String(x.number), when(x.startedAt), when(x.lastAt), String(x.pageViews), x.landingPath ? h('code', { class: 'wrap' }, x.landingPath) : '–', x.referrer ?? '–', x.utmCampaign ?? '–']),
          [3],
        )
      : h('p', { class: 'muted' }, 'No sessions.'),
    h('h3', {}, 'Pages, newest first'),
    pages.length ? table('Pages', ['Page', 'Title', 'When'], pages.map((p) => [h('code', { class: 'wrap' }, p.path), p.title ?? '–', when(p.at)])) : h('p', { class: 'muted' }, 'No page views.'),
    h('p', {}, close),
  );
  slot.replaceChildren(section);
  section.querySelector('h2').focus();
}

// "form submitted on /contact, confidence 0.90, Nov 28 10:01": the reason a visitor is who we say.
function reason(by) {
  const path = by.sourcePath;
  return [methodName(by.method), path ? [' on ', h('code', {}, path)] : '', typeof by.confidence === 'number' ? `, confidence ${confidence(by.confidence)}` : '', by.at ? [', ', when(by.at)] : ''];
}

// ---- page rules and email links --------------------------------------------------------------

const PAGE_RULE_PATTERN = /^\/[^\s]{0,255}$/;

async function pageRulesPage(root) {
  const list = h('div', {}, loading());
  const listHeading = h('h2', { tabindex: '-1' }, 'Your page rules');
  const pattern = h('input', { type: 'text', required: true, maxlength: '256', autocomplete: 'off', spellcheck: 'false', placeholder: '/pricing*' });
  const event = h('input', { type: 'text', required: true, maxlength: '64', autocomplete: 'off', spellcheck: 'false', placeholder: 'viewed_pricing' });
  const form = h(
    'form',
    { class: 'create', onsubmit: action(add) },
    field('rule-pattern', 'Page path pattern', pattern, '* matches any characters, e.g. /pricing* or /docs/*/install.'),
    field('rule-event', 'Event', event, 'The event name a playbook can start on.'),
    h('button', { type: 'submit' }, 'Add rule'),
  );

  async function add() {
    const body = { pattern: pattern.value.trim(), event: event.value.trim() };
    for (const [input, ok, message] of [
      [pattern, PAGE_RULE_PATTERN.test(body.pattern), 'A pattern is a path starting with /, up to 256 characters, no spaces.'],
      [event, EVENT_NAME.test(body.event), `“${body.event}” is not a valid event name: 1 to 64 letters, digits, _ . : -`],
    ]) {
      if (ok) input.removeAttribute('aria-invalid');
      else {
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        throw new ApiError(0, 'invalid_request', message);
      }
    }
    await api('POST', 'page-rules', body);
    form.reset();
    await load();
    say(`Rule added: a page view of ${body.pattern} becomes ${body.event}.`);
  }

  async function load() {
    const { items } = await api('GET', 'page-rules');
    if (!list.isConnected) return;
    const rows = items.map((r) => [
      h('code', {}, r.pattern),
      h('code', {}, r.event),
      when(r.createdAt ?? r.created_at),
      h('button', { type: 'button', class: 'danger', onclick: action(() => remove(r)) }, 'Delete', hidden(` rule ${r.pattern}`)),
    ]);
    list.replaceChildren(items.length ? table('Page rules', ['Pattern', 'Event', 'Created', 'Actions'], rows) : h('p', {}, 'No page rules yet.'));
  }

  async function remove(rule) {
    if (!confirm(`Delete the rule ${rule.pattern} → ${rule.event}? Page views stop becoming this event.`)) return;
    await api('DELETE', `page-rules/${encodeURIComponent(rule.id)}`);
    await load();
    listHeading.focus();
    say(`Rule ${rule.pattern} deleted.`);
  }

  root.append(
    ...pageHeading('Page rules', 'A page view of an identified visitor that matches a rule becomes that event for the person, at most once per rule per session, through the same pipeline as your events: a playbook can start on “viewed pricing”.'),
    form,
    listHeading,
    list,
  );
  await load();
}

function emailLinksPage(root) {
  const slot = h('div');
  const email = h('input', { type: 'email', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'ann@example.com' });
  const days = h('input', { type: 'number', required: true, min: '1', max: '365', step: '1', value: '30' });
  const link = h('input', { type: 'url', autocomplete: 'off', spellcheck: 'false', placeholder: 'https://www.example.com/pricing' });
  const form = h(
    'form',
    { class: 'site-form', onsubmit: action(create) },
    field('link-email', 'Recipient’s email', email),
    field('link-days', 'Valid for (days)', days, '1 to 365.'),
    field('link-url', 'Campaign link (optional)', link, 'A page of one of your sites; the parameter is appended to it.'),
    h('button', { type: 'submit' }, 'Create link parameter'),
  );

  async function create() {
    const ttl = Number(days.value);
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > 365) {
      days.setAttribute('aria-invalid', 'true');
      days.focus();
      throw new ApiError(0, 'invalid_request', 'Valid for: a whole number of days from 1 to 365.');
    }
    days.removeAttribute('aria-invalid');
    let url = null;
    if (link.value.trim()) {
      try {
        url = new URL(link.value.trim());
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
        link.removeAttribute('aria-invalid');
      } catch {
        link.setAttribute('aria-invalid', 'true');
        link.focus();
        throw new ApiError(0, 'invalid_request', 'The campaign link must be an http or https address.');
      }
    }
    const { token, expiresAt } = await api('POST', 'link-tokens', { email: email.value.trim(), ttl_days: ttl });
    const param = h('code', { class: 'secret-value', id: 'link-param' }, `?gl=${token}`);
    let full = null;
    if (url) {
      url.searchParams.set('gl', token);
      full = h('code', { class: 'secret-value', id: 'link-full' }, url.href);
    }
    const result = h(
      'section',
      { class: 'secret-box', 'aria-labelledby': 'link-title', tabindex: '-1' },
      h('h2', { id: 'link-title' }, 'Link parameter'),
      h('p', {}, 'Append this to the campaign link (use & instead of ? if the link has a query already). A visitor who opens it is identified with method “email link”; the tag removes it from the address bar. It expires ', when(expiresAt), '.'),
      h('p', {}, param),
      h('div', { class: 'actions' }, copyButton('Copy parameter', param)),
      full && [h('p', {}, full), h('div', { class: 'actions' }, copyButton('Copy link', full))],
    );
    slot.replaceChildren(result);
    result.focus();
  }

  root.append(
    ...pageHeading('Email links', 'A link parameter for one recipient of a campaign: it is opaque and signed, bound to your account, expires, and never contains the email in clear.'),
    form,
    slot,
  );
}

// ---- routing -------------------------------------------------------------------------------

const PAGES = {
  'event-tokens': { title: 'Event tokens', render: eventTokensPage },
  'api-keys': { title: 'API keys', render: apiKeysPage },
  sites: { title: 'Sites', render: sitesPage },
  visitors: { title: 'Visitors', render: visitorsPage },
  'page-rules': { title: 'Page rules', render: pageRulesPage },
  'email-links': { title: 'Email links', render: emailLinksPage },
  playbooks: { title: 'Playbooks', render: playbooksPage },
  enrollments: { title: 'Enrollments', render: enrollmentsPage },
  events: { title: 'Recent events', render: eventsPage },
  receipt: { title: 'Event receipt', render: receiptPage },
  suppressions: { title: 'Suppressions', render: suppressionsPage },
  usage: { title: 'Usage', render: usagePage },
  webhooks: { title: 'Webhooks', render: webhooksPage },
};

function currentRoute() {
  if (!location.hash.startsWith('#/')) return null;
  const [name, query = ''] = location.hash.slice(2).split('?');
  return Object.hasOwn(PAGES, name) ? { name, params: new URLSearchParams(query) } : null;
}

// Replacing <main>'s children is also what drops a one-time secret when the page changes.
function render() {
  const main = $('main');
  const signedIn = apiKey !== null;
  $('nav').hidden = !signedIn;
  $('sign-out').hidden = !signedIn;
  const root = h('div', { class: 'page' });
  main.replaceChildren(root);
  if (!signedIn) {
    document.title = 'Sign in · Glimpse console';
    signInPage(root);
    return;
  }
  let route = currentRoute();
  if (!route) {
    history.replaceState(null, '', `#/${HOME}`);
    route = currentRoute();
  }
  const page = PAGES[route.name];
  document.title = `${page.title} · Glimpse console`;
  for (const link of $('nav').querySelectorAll('a')) {
    if (link.getAttribute('href') === `#/${route.name}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  page.render(root, route.params)?.catch(fail);
}

function focusHeading() {
  $('main').querySelector('h1')?.focus();
}

function signOut() {
  apiKey = null;
  render();
}

window.addEventListener('hashchange', () => {
  if (location.hash && !location.hash.startsWith('#/')) return; // the skip link, not a page
  clearMessages();
  render();
  focusHeading();
});
$('sign-out').addEventListener('click', () => {
  clearMessages();
  signOut();
  say('Signed out.');
  focusHeading();
});
// A page restored from the back/forward cache would still hold the key: start signed out.
window.addEventListener('pageshow', (event) => {
  if (event.persisted && apiKey !== null) signOut();
});

render();
