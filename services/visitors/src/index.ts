export { startVisitorsService } from './start.js';
export type { RunningVisitorsService } from './start.js';
export { loadConfig } from './config.js';
export type { VisitorsConfig } from './config.js';
export { planCollected } from './domain/plan-collected.js';
export type { VisitorState, CollectedPlan } from './domain/plan-collected.js';
export { replayOneByOne, emptyTables } from './domain/collected-replay.js';
export { trackEventId } from './domain/track-event-id.js';
