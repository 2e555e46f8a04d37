// Process entry point: start, and shut down gracefully on SIGTERM/SIGINT.
import { runService } from '@glimpse/http';
import { startVisitorsService } from './start.js';

runService('visitors', startVisitorsService);
