// The playbook management use cases (domain/manage-playbooks.ts) bound to Postgres through the data
// layer's PlaybookStore. These keep the signatures the CLI, the scripts, the bench and the tests call
// them by (a Db first).
import { createPlaybookStore } from '../data/playbook-repository.js';
import * as manage from '../domain/manage-playbooks.js';
import { withStore } from './with-store.js';

export const createPlaybook = withStore(manage.createPlaybook, createPlaybookStore);
export const getPlaybook = withStore(manage.getPlaybook, createPlaybookStore);
export const updatePlaybook = withStore(manage.updatePlaybook, createPlaybookStore);
export const deletePlaybook = withStore(manage.deletePlaybook, createPlaybookStore);
export const listPlaybooks = withStore(manage.listPlaybooks, createPlaybookStore);
export const listEnrollments = withStore(manage.listEnrollments, createPlaybookStore);
export const enrollmentPage = withStore(manage.enrollmentPage, createPlaybookStore);
export const eventCatalog = withStore(manage.eventCatalog, createPlaybookStore);
export const eventCatalogUsage = withStore(manage.eventCatalogUsage, createPlaybookStore);
export const eventCatalogPage = withStore(manage.eventCatalogPage, createPlaybookStore);
