// Points every integration test at the test database and the local infrastructure.
import { applyTestEnvironment } from './config';

applyTestEnvironment();
