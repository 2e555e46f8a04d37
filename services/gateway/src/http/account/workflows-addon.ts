// The management routes of the workflows add-on: event-token creation, playbooks (and their dry
// run) and page rules that make events answer 403 addon_required for an account without it (a page
// rule that only scores needs no add-on: visitor-routes.ts asks for it when the rule has an event).
// The flag comes with the authenticated credential (cached with it), so the check costs no query.
import type { RequestHandler } from 'express';
import { workflowsAddonRequired } from '@glimpse/auth';

/** Paths under which every method belongs to the add-on. */
export const WORKFLOWS_PATHS = ['/account/playbooks', '/account/events/dry-run'];

export const requireWorkflows: RequestHandler = (_req, res, next) => {
  if (res.locals.workflows !== true) throw workflowsAddonRequired();
  next();
};
