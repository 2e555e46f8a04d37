// Process entry point: start, and shut down gracefully on SIGTERM/SIGINT.
import { runService } from '@glimpse/http';
import { startGateway } from './start.js';

runService('gateway', startGateway);
