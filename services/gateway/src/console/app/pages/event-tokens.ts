// Event tokens: what POST /events is authenticated with.
import { credentialsPage } from './credentials';

export const eventTokensPage = credentialsPage({
  path: 'event-tokens',
  title: 'Event tokens',
  noun: 'event token',
  secretField: 'token',
  intro: 'Event tokens authenticate POST /events. Revoke a token you no longer use or that may have leaked.',
});
