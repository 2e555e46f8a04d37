// A Kafka broker of the test's own (the same jars and scripts/infra/kafka-ctl.js as the shared one,
// in a temporary directory, on free ports), with the project's topics, for tests that stop or freeze
// the broker: the shared broker other tests and other checkouts use is never touched, and every
// signal goes to the pid this broker recorded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canBind, freePort } from './private-postgres';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const kafkaCtl = require('../../scripts/infra/kafka-ctl.js') as {
  startKafka(options: { brokers: string[]; kafkaDir: string; timeoutMs?: number }): Promise<{ started: boolean }>;
  stopKafka(options: { kafkaDir: string; force?: boolean; timeoutMs?: number }): Promise<{ stopped: boolean; reason?: string }>;
  ensureTopics(options: { brokers: string[] }): Promise<unknown>;
  brokerPid(paths: unknown): number | null;
  kafkaPaths(kafkaDir: string): unknown;
};

export interface PrivateKafka {
  brokers: string[];
  /** The broker's pid while it runs, else null. */
  pid(): number | null;
  /** Idempotent: a no-op while it answers. */
  start(): Promise<void>;
  /** SIGTERM by pid; resolves once the process is gone. */
  stop(): Promise<{ stopped: boolean }>;
  /** Stops it (SIGKILL) and removes its directory. */
  destroy(): Promise<void>;
}

/** A port whose neighbour (the broker's controller listener) is free too. */
async function freePortPair(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    if (port < 65535 && (await canBind(port + 1))) return port;
  }
  throw new Error('no two adjacent free ports for a private Kafka broker');
}

export async function startPrivateKafka(): Promise<PrivateKafka> {
  const kafkaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'glimpse-kafka-'));
  const brokers = [`127.0.0.1:${await freePortPair()}`];
  const start = async () => {
    await kafkaCtl.startKafka({ brokers, kafkaDir, timeoutMs: 90_000 });
  };
  await start();
  await kafkaCtl.ensureTopics({ brokers });
  return {
    brokers,
    pid: () => kafkaCtl.brokerPid(kafkaCtl.kafkaPaths(kafkaDir)),
    start,
    stop: () => kafkaCtl.stopKafka({ kafkaDir }),
    async destroy() {
      try {
        await kafkaCtl.stopKafka({ kafkaDir, force: true });
      } finally {
        fs.rmSync(kafkaDir, { recursive: true, force: true });
      }
    },
  };
}
