// The playbook management use cases (domain/manage-playbooks.ts) bound to Postgres through the data
// layer's PlaybookStore. These keep the signatures the CLI, the scripts, the bench and the tests call
// them by (a Db first).
import type { Db } from '@glimpse/db';
import { createPlaybookStore } from '../data/playbook-repository.js';
import * as manage from '../domain/manage-playbooks.js';

type Rest<F> = F extends (store: never, ...rest: infer R) => infer T ? (db: Db, ...rest: R) => T : never;

export const createPlaybook: Rest<typeof manage.createPlaybook> = (db, ...rest) => manage.createPlaybook(createPlaybookStore(db), ...rest);
export const getPlaybook: Rest<typeof manage.getPlaybook> = (db, ...rest) => manage.getPlaybook(createPlaybookStore(db), ...rest);
export const updatePlaybook: Rest<typeof manage.updatePlaybook> = (db, ...rest) => manage.updatePlaybook(createPlaybookStore(db), ...rest);
export const deletePlaybook: Rest<typeof manage.deletePlaybook> = (db, ...rest) => manage.deletePlaybook(createPlaybookStore(db), ...rest);
export const listPlaybooks: Rest<typeof manage.listPlaybooks> = (db, ...rest) => manage.listPlaybooks(createPlaybookStore(db), ...rest);
export const listEnrollments: Rest<typeof manage.listEnrollments> = (db, ...rest) => manage.listEnrollments(createPlaybookStore(db), ...rest);
export const enrollmentPage: Rest<typeof manage.enrollmentPage> = (db, ...rest) => manage.enrollmentPage(createPlaybookStore(db), ...rest);
export const eventCatalog: Rest<typeof manage.eventCatalog> = (db, ...rest) => manage.eventCatalog(createPlaybookStore(db), ...rest);
export const eventCatalogUsage: Rest<typeof manage.eventCatalogUsage> = (db, ...rest) => manage.eventCatalogUsage(createPlaybookStore(db), ...rest);
export const eventCatalogPage: Rest<typeof manage.eventCatalogPage> = (db, ...rest) => manage.eventCatalogPage(createPlaybookStore(db), ...rest);
