// The enrichment service (lookups): built in the lookups issue; empty until then.
export {};
