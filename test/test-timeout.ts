// Integration tests talk to real brokers and processes: give them time (jest's testTimeout is not per-project).
jest.setTimeout(60_000);
