/// <reference lib="dom" />
// The console's playbook tools (receipts, the dry run, the re-enrollment policy, suppressions, erasure) in a real headless Chromium against the whole stack in this
// process: the receipt of an event posted through POST /events and applied by the real playbook
// consumer, a dry run next to a playbook, the re-enrollment policy set in the console and read back
// through the API, and the suppression list with erasure behind a confirm step. Each page is saved
// as a full-page screenshot under artifacts/console/.
import { randomUUID } from 'node:crypto';
import { type Page } from 'playwright-core';
import { createTestApiKey, postEvent, sendNamesOnce, startManagementStack, uniqueEmail, waitFor } from '../../../test/support/stack';
import { goTo, heading, openConsole, screenshot, signIn, useConsole, type ConsoleTab } from '../../../test/support/console';
import { api, createManager, type Api, type Manager } from './management-helpers';

const ui = useConsole("the console's browser tests", () => startManagementStack({}, { webhooks: true }));

/** A fresh tab, signed in with `key`, that records script errors and everything written to the console. */
async function signedIn(key: string): Promise<ConsoleTab> {
  const tab = await openConsole(ui.browser, ui.stack.gateway.url, { viewport: { width: 1200, height: 800 }, acceptDialogs: false });
  await signIn(tab.page, key);
  return tab;
}

const alertText = (page: Page) => page.getByRole('alert').textContent();
const statusText = (page: Page) => page.getByRole('status').textContent();
const rowOf = (scope: ReturnType<Page['getByRole']>, header: string) =>
  scope.getByRole('row').filter({ has: scope.page().getByRole('rowheader', { name: header, exact: true }) });

/** Waits for an alert with text other than `before` and returns it. */
const nextAlert = (page: Page, before = '') =>
  waitFor(
    async () => {
      const text = await alertText(page);
      return text && text !== before ? text : undefined;
    },
    { what: 'an error announced' },
  );

/** Posts an event and waits until its receipt exists through the API (the consumer applied it). */
async function sendApplied(manager: Manager, client: Api, email: string, event: string): Promise<string> {
  const res = await postEvent(ui.stack.gateway.url, manager.token, { event, email });
  expect(res.status).toBe(200);
  const eventId = res.headers.get('x-event-id')!;
  expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
  await waitFor(async () => (await client.get(`/account/events/${eventId}`)).status === 200, { what: `the receipt of ${event}` });
  return eventId;
}

async function createPlaybook(client: Api, body: object): Promise<string> {
  const res = await client.post('/account/playbooks', body);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('console: receipts, dry runs, re-enrollment and suppressions', () => {
  it('when a person opens the receipt of a real event, then it says which playbook it started and why it left another as it was', async () => {
    const manager = await createManager();
    const client = api(ui.stack.gateway.url, manager.key);
    await sendNamesOnce(ui.stack.gateway.url, manager, ['signed_up']);
    const welcome = await createPlaybook(client, { name: 'Welcome', triggers: ['signed_up'], exits: ['purchase'] });
    await createPlaybook(client, { name: 'Follow-up', triggers: ['signed_up'], reenrollment: 'once' });
    const email = uniqueEmail('console-receipt');
    const first = await sendApplied(manager, client, email, 'signed_up');
    const second = await sendApplied(manager, client, email, 'signed_up');
    const stranger = await sendApplied(manager, client, uniqueEmail('console-stranger'), 'purchase');
    const { page, problems, consoleLines } = await signedIn(manager.key);

    // From the recent events, the first event's receipt: both playbooks started.
    await goTo(page, 'Recent events');
    await page.getByRole('link', { name: `Receipt of event ${first}` }).click();
    await heading(page, 'Event receipt');
    const firstReceipt = page.getByRole('table', { name: `What event ${first} did` });
    await firstReceipt.waitFor();
    expect(page.url()).toContain(`#/receipt?event=${first}`);
    expect(await page.getByLabel('Event id').inputValue()).toBe(first);
    expect(await rowOf(firstReceipt, 'Welcome').textContent()).toMatch(/Started an enrollment/);
    expect(await rowOf(firstReceipt, 'Follow-up').textContent()).toMatch(/Started an enrollment/);
    expect(await page.getByRole('link', { name: 'Welcome', exact: true }).getAttribute('href')).toBe(`#/enrollments?playbook=${welcome}`);

    // The second, pasted into the form: both left as they were, each with its reason.
    await page.getByLabel('Event id').fill(second);
    await page.getByLabel('Event id').press('Enter');
    const secondReceipt = page.getByRole('table', { name: `What event ${second} did` });
    await secondReceipt.waitFor();
    expect(await rowOf(secondReceipt, 'Welcome').textContent()).toMatch(/Left as it was.*the person is already active in it/);
    expect(await rowOf(secondReceipt, 'Follow-up').textContent()).toMatch(/Left as it was.*the person is already active in it/);
    expect(await page.locator('main').textContent()).not.toMatch(/null|undefined/);
    await screenshot(page, 'receipt');

    // An exit for someone who is not enrolled: nothing to stop.
    await page.getByLabel('Event id').fill(stranger);
    await page.getByRole('button', { name: 'Show receipt' }).click();
    const strangerReceipt = page.getByRole('table', { name: `What event ${stranger} did` });
    await strangerReceipt.waitFor();
    expect(await strangerReceipt.getByRole('row').count()).toBe(2); // the header and Welcome
    expect(await rowOf(strangerReceipt, 'Welcome').textContent()).toMatch(/Left as it was.*not active/);

    // An id the account never sent: the API's own message, and no stale receipt left on the page.
    const unknown = randomUUID();
    const apiAnswer = await client.get(`/account/events/${unknown}`);
    expect(apiAnswer.status).toBe(404);
    await page.getByLabel('Event id').fill(unknown);
    await page.getByRole('button', { name: 'Show receipt' }).click();
    expect(await nextAlert(page)).toBe(apiAnswer.body.message);
    expect(await page.getByRole('table').count()).toBe(0);

    // Once the person is erased, their events' receipts say so.
    expect(await page.getByText('The person has been erased since').count()).toBe(0);
    expect((await client.del(`/account/persons/${encodeURIComponent(email)}`)).status).toBe(200);
    await page.getByLabel('Event id').fill(first);
    await page.getByRole('button', { name: 'Show receipt' }).click();
    await firstReceipt.waitFor();
    expect(await page.getByText('The person has been erased since').count()).toBe(1);

    expect(problems).toEqual([]);
    expect(consoleLines.filter((line) => line.includes('@'))).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('when a person sets a policy and tests a trigger in the console, then the API has the policy and the dry run shows each outcome without writing', async () => {
    const manager = await createManager();
    const client = api(ui.stack.gateway.url, manager.key);
    await sendNamesOnce(ui.stack.gateway.url, manager, ['signed_up']);
    const trial = await createPlaybook(client, { name: 'Trial', triggers: ['signed_up'], exits: ['purchase'] });
    const enrolled = uniqueEmail('console-enrolled');
    await sendApplied(manager, client, enrolled, 'signed_up');
    const { page, problems, consoleLines } = await signedIn(manager.key);
    await goTo(page, 'Playbooks');
    const playbooks = page.getByRole('table', { name: 'Playbooks' });
    expect(await rowOf(playbooks, 'Trial').textContent()).toMatch(/When inactive/);

    // A new playbook with the restart policy: read back through the API.
    await page.getByLabel('Name', { exact: true }).fill('Win-back');
    await page.getByRole('checkbox', { name: 'signed_up', exact: true }).check();
    expect(await page.getByRole('radio', { name: 'When inactive' }).isChecked()).toBe(true); // the default
    await page.getByRole('radio', { name: 'Restart' }).check();
    await page.getByRole('button', { name: 'Create playbook' }).click();
    await rowOf(playbooks, 'Win-back').waitFor();
    expect(await rowOf(playbooks, 'Win-back').textContent()).toMatch(/Restart/);
    const listed = (await client.get('/account/playbooks')).body.items as { id: string; name: string; reenrollment: string }[];
    expect(listed.find((p) => p.name === 'Win-back')?.reenrollment).toBe('restart');

    // An existing playbook changed to once: the form shows its policy, the API has the new one.
    await page.getByRole('button', { name: 'Edit Trial' }).click();
    expect(await page.getByRole('radio', { name: 'When inactive' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Once' }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Playbook “Trial” saved.' }).waitFor();
    expect((await client.get(`/account/playbooks/${trial}`)).body.reenrollment).toBe('once');
    expect(await rowOf(playbooks, 'Trial').textContent()).toMatch(/Once/);
    await page.getByRole('button', { name: 'Edit Trial' }).click();
    expect(await page.getByRole('radio', { name: 'Once' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Cancel' }).click();

    // Test a trigger of Trial: the event name is one of its triggers.
    await page.getByRole('button', { name: 'Test a trigger of Trial' }).click();
    await page.getByRole('heading', { level: 2, name: 'Test a trigger of “Trial”' }).waitFor();
    expect(await page.getByLabel('Event name').inputValue()).toBe('signed_up');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('dry-run-email');

    // Someone new: both would start. Nothing is written.
    const fresh = uniqueEmail('console-fresh');
    await page.getByLabel('Email', { exact: true }).fill(fresh);
    await page.getByRole('button', { name: 'Run dry run' }).click();
    const result = page.getByRole('table', { name: 'Dry run of signed_up' });
    await page.getByRole('heading', { level: 3, name: `If signed_up came now for ${fresh}` }).waitFor();
    expect(await result.locator('tbody th').allTextContents()).toEqual(['Trial', 'Win-back']); // the tested playbook first
    expect(await rowOf(result, 'Trial').textContent()).toMatch(/Would start.*the event is one of its triggers/);
    expect(await rowOf(result, 'Win-back').textContent()).toMatch(/Would start/);
    const trialEnrollments = (await client.get(`/account/playbooks/${trial}/enrollments`)).body.items as { email: string }[];
    expect(trialEnrollments.map((e) => e.email)).toEqual([enrolled]);

    // Someone already active in Trial (enrolled before Win-back existed): no change there, a start in Win-back.
    await page.getByLabel('Email', { exact: true }).fill(enrolled);
    await page.getByRole('button', { name: 'Run dry run' }).click();
    await page.getByRole('heading', { level: 3, name: `If signed_up came now for ${enrolled}` }).waitFor();
    expect(await rowOf(result, 'Trial').textContent()).toMatch(/No change.*the person is already active in it/);
    expect(await rowOf(result, 'Win-back').textContent()).toMatch(/Would start/);
    expect(await page.locator('main').textContent()).not.toMatch(/null|undefined/);
    await screenshot(page, 'playbooks-dry-run');

    // An exit of Trial that Trial's person is active in: would stop; Win-back does not opt in.
    await page.getByLabel('Event name').fill('purchase');
    await page.getByRole('button', { name: 'Run dry run' }).click();
    await page.getByRole('heading', { level: 3, name: `If purchase came now for ${enrolled}` }).waitFor();
    const exitResult = page.getByRole('table', { name: 'Dry run of purchase' });
    expect(await exitResult.locator('tbody th').allTextContents()).toEqual(['Trial']);
    expect(await rowOf(exitResult, 'Trial').textContent()).toMatch(/Would stop/);
    expect(await page.getByText('has never been sent').count()).toBe(1); // purchase is not in the catalog

    // A bad email: the API's message.
    const apiAnswer = await client.post('/account/events/dry-run', { event: 'signed_up', email: 'not-an-email' });
    expect(apiAnswer.status).toBe(400);
    await page.getByLabel('Email', { exact: true }).fill('not-an-email');
    await page.getByRole('button', { name: 'Run dry run' }).click();
    expect(await nextAlert(page)).toBe(apiAnswer.body.message);

    // Still nothing written by any of the dry runs.
    expect(((await client.get(`/account/playbooks/${trial}/enrollments?status=active`)).body.items as { email: string }[]).map((e) => e.email)).toEqual([
      enrolled,
    ]);
    expect(problems).toEqual([]);
    expect(consoleLines.filter((line) => line.includes('@'))).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('when a person suppresses, lists, lifts and erases in the console, then the API agrees and the erasure counts are shown', async () => {
    const manager = await createManager();
    const client = api(ui.stack.gateway.url, manager.key);
    await sendNamesOnce(ui.stack.gateway.url, manager, ['signed_up']);
    const nurture = await createPlaybook(client, { name: 'Nurture', triggers: ['signed_up'] });
    const person = uniqueEmail('console-erase');
    await sendApplied(manager, client, person, 'signed_up');
    // 25 suppressions already (one console page), added with a key of their own (rate limits are per key).
    const seeder = api(ui.stack.gateway.url, (await createTestApiKey(manager.accountId, ['account:manage'])).key);
    const seeded: string[] = [];
    for (let i = 0; i < 25; i++) {
      const email = uniqueEmail(`seed${i}`);
      expect((await seeder.post('/account/suppressions', { email })).status).toBe(201);
      seeded.push(email);
    }
    const suppressedEmails = async () => ((await client.get('/account/suppressions?limit=200')).body.items as { email: string }[]).map((s) => s.email);

    const { page, problems, consoleLines } = await signedIn(manager.key);
    await goTo(page, 'Suppressions');
    const list = page.getByRole('table', { name: 'Suppressed people' });
    await list.waitFor();
    expect(await list.locator('tbody tr').count()).toBe(25);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);

    // A bad email: the API's message.
    const apiAnswer = await client.post('/account/suppressions', { email: 'nobody' });
    expect(apiAnswer.status).toBe(400);
    await page.getByLabel('Email to suppress').fill('nobody');
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    expect(await nextAlert(page)).toBe(apiAnswer.body.message);

    // Suppress the enrolled person: their enrollment stops now; they head the list; 26 need two pages.
    await page.getByLabel('Email to suppress').fill(`  ${person.toUpperCase()} `);
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'suppressed' }).waitFor();
    expect(await statusText(page)).toBe(`${person} suppressed; 1 active enrollment stopped.`);
    expect(await list.locator('tbody th').first().textContent()).toBe(person);
    expect(await suppressedEmails()).toContain(person);
    expect((await client.get(`/account/playbooks/${nurture}/enrollments`)).body.items).toMatchObject([
      { email: person, status: 'stopped', stoppedBy: 'suppressed' },
    ]);
    expect(await list.locator('tbody tr').count()).toBe(25);
    await page.getByRole('button', { name: 'Load more' }).click();
    await waitFor(async () => (await list.locator('tbody tr').count()) === 26, { what: 'the second page' });
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(new Set(await list.locator('tbody th').allTextContents())).toEqual(new Set([person, ...seeded]));
    await screenshot(page, 'suppressions');

    // Suppressing again says so.
    await page.getByLabel('Email to suppress').fill(person);
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'already' }).waitFor();
    expect(await statusText(page)).toBe(`${person} was already suppressed; no active enrollment to stop.`);

    // Lift the oldest: gone from the page and from the API.
    const lifted = seeded[0]!;
    await page.getByRole('button', { name: 'Load more' }).click();
    await rowOf(list, lifted)
      .getByRole('button', { name: `Lift the suppression of ${lifted}` })
      .click();
    await page.getByRole('status').filter({ hasText: 'lifted' }).waitFor();
    expect(await suppressedEmails()).not.toContain(lifted);
    expect(await rowOf(list, lifted).count()).toBe(0);

    // Erase: nothing happens before the confirm step; cancelling leaves the person as they were.
    await page.getByLabel('Email to erase').fill(person);
    await page.getByRole('button', { name: 'Erase…' }).click();
    const confirmBox = page.getByRole('region', { name: `Erase ${person}?` });
    await confirmBox.waitFor();
    expect(await suppressedEmails()).toContain(person);
    await confirmBox.getByRole('button', { name: 'Cancel' }).click();
    await confirmBox.waitFor({ state: 'detached' });
    expect(await suppressedEmails()).toContain(person);

    await page.getByRole('button', { name: 'Erase…' }).click();
    await screenshot(page, 'erase-confirm');
    await confirmBox.getByRole('button', { name: `Erase ${person}` }).click();
    const counts = page.getByRole('table', { name: `What erasing ${person} did` });
    await counts.waitFor();
    const shown = Object.fromEntries(
      await counts.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, Number(r.querySelector('td')!.textContent)])),
    );
    expect(shown).toEqual({
      'Active enrollments stopped': 0, // the suppression stopped it
      'Enrollments kept with the email hashed': 1,
      'Playbook effects kept with the email hashed': 2, // its start and the suppression's stop
      'Suppressions deleted': 1,
      'Raw events deleted': 1,
      'Webhook deliveries kept with the email hashed': 0, // the account has no webhook endpoint
      'Site visitors’ page-view data deleted': 0, // never seen by a site tag
      'Visitor identity links deleted': 0,
      'Imported visitors deleted': 0,
      'Imported visitors’ page views kept with the email hashed': 0,
    });
    expect(await confirmBox.count()).toBe(0);
    expect(await suppressedEmails()).not.toContain(person);
    await rowOf(list, person).waitFor({ state: 'detached' }); // the list is reloaded without them
    const after = (await client.get(`/account/playbooks/${nurture}/enrollments`)).body.items as { email: string }[];
    expect(after).toHaveLength(1);
    expect(after[0]!.email).toMatch(/^erased:[0-9a-f]{64}$/);
    expect(await page.locator('main').textContent()).not.toMatch(/null|undefined/);
    await screenshot(page, 'erasure');

    expect(problems).toEqual([]);
    expect(consoleLines.filter((line) => line.includes('@'))).toEqual([]);
    await page.context().close();
  }, 120_000);
});
