// The gateway's drain on stop, in order: no new requests first, then the outbox publisher (which
// sends through the producer), then the producer (flushing what it holds), then everything else.

export interface GatewayParts {
  server: { stop(): Promise<unknown> };
  accountEvents: { stop(): Promise<unknown> };
  producer: { disconnect(): Promise<unknown> };
  kafkaHealth: { close(): Promise<unknown> };
  clients: Record<string, { close(): Promise<unknown> }>;
  memoryGuard: { stop(): void };
  redis: { disconnect(): void };
  db: { $disconnect(): Promise<unknown> };
}

export async function stopGatewayParts({ server, accountEvents, producer, kafkaHealth, clients, memoryGuard, redis, db }: GatewayParts): Promise<void> {
  await server.stop();
  await accountEvents.stop();
  await producer.disconnect();
  await kafkaHealth.close();
  for (const client of Object.values(clients)) await client.close();
  memoryGuard.stop();
  redis.disconnect();
  await db.$disconnect();
}
