// Prisma CLI configuration (Prisma 7 reads the datasource URL from here, not the schema).
import { defineConfig } from 'prisma/config';
import LOCAL_DEFAULTS from './shared/config/src/defaults.json';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? LOCAL_DEFAULTS.DATABASE_URL },
});
