// Process entry point: start, and shut down gracefully on SIGTERM/SIGINT.
import { runService } from '@glimpse/http';
import { startEnrichmentService } from './start.js';

runService('enrichment', startEnrichmentService);
