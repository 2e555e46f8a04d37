// Process entry point: start, and shut down gracefully on SIGTERM/SIGINT.
import { runService } from '@glimpse/http';
import { startWebhooksService } from './start.js';

runService('webhooks', startWebhooksService);
