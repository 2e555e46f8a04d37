// The person and event use cases bound to Postgres: each domain use case (domain/persons.ts,
// receipts.ts, dry-run.ts) with its data layer's store. These keep the signatures the CLI, the
// tests and the internal routes call them by (a Db first).
import type { Db } from '@glimpse/db';
import { createDryRunStore } from '../data/dry-run-store.js';
import { createPersonStore } from '../data/person-store.js';
import { createReceiptStore } from '../data/receipt-store.js';
import * as dryRun from '../domain/dry-run.js';
import * as persons from '../domain/persons.js';
import * as receipts from '../domain/receipts.js';

type Rest<F> = F extends (store: never, ...rest: infer R) => infer T ? (db: Db, ...rest: R) => T : never;

export const dryRunEvent: Rest<typeof dryRun.dryRunEvent> = (db, ...rest) => dryRun.dryRunEvent(createDryRunStore(db), ...rest);
export const getReceipt: Rest<typeof receipts.getReceipt> = (db, ...rest) => receipts.getReceipt(createReceiptStore(db), ...rest);
export const suppressPerson: Rest<typeof persons.suppressPerson> = (db, ...rest) => persons.suppressPerson(createPersonStore(db), ...rest);
export const unsuppressPerson: Rest<typeof persons.unsuppressPerson> = (db, ...rest) => persons.unsuppressPerson(createPersonStore(db), ...rest);
export const suppressionPage: Rest<typeof persons.suppressionPage> = (db, ...rest) => persons.suppressionPage(createPersonStore(db), ...rest);
/** (db, erasedEmail, accountId, email) as before. */
export const erasePerson: Rest<typeof persons.erasePerson> = (db, ...rest) => persons.erasePerson(createPersonStore(db), ...rest);
