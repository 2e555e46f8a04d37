// Process entry point: start, and shut down gracefully on SIGTERM/SIGINT.
import { runService } from '@glimpse/http';
import { startPlaybookService } from './start.js';

runService('playbook', startPlaybookService);
