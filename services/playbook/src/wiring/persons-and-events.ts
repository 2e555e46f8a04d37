// The person and event use cases bound to Postgres: each domain use case (domain/persons.ts,
// receipts.ts, dry-run.ts) with its data layer's store. These keep the signatures the CLI, the
// tests and the internal routes call them by (a Db first).
import { createDryRunStore } from '../data/dry-run-store.js';
import { createPersonStore } from '../data/person-store.js';
import { createReceiptStore } from '../data/receipt-store.js';
import * as dryRun from '../domain/dry-run.js';
import * as persons from '../domain/persons.js';
import * as receipts from '../domain/receipts.js';
import { withStore } from './with-store.js';

export const dryRunEvent = withStore(dryRun.dryRunEvent, createDryRunStore);
export const getReceipt = withStore(receipts.getReceipt, createReceiptStore);
export const suppressPerson = withStore(persons.suppressPerson, createPersonStore);
export const unsuppressPerson = withStore(persons.unsuppressPerson, createPersonStore);
export const suppressionPage = withStore(persons.suppressionPage, createPersonStore);
/** (db, erasedEmail, accountId, email) as before. */
export const erasePerson = withStore(persons.erasePerson, createPersonStore);
