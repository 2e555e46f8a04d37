// Binds a domain use case, which takes its store first, to Postgres: the bound form takes a Db
// first and builds the store from it, keeping the signatures the CLI, scripts, bench and tests call.
import type { Db } from '@glimpse/db/playbook';

export function withStore<S, R extends unknown[], T>(useCase: (store: S, ...rest: R) => T, storeOf: (db: Db) => S): (db: Db, ...rest: R) => T {
  return (db, ...rest) => useCase(storeOf(db), ...rest);
}
