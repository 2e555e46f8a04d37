// Points every integration test at the test database and the local infrastructure.
import { testDatabaseUrl } from './config';

process.env.DATABASE_URL = testDatabaseUrl();
process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
