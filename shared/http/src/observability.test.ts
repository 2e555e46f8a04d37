import { readinessReason } from './observability';

describe('readinessReason', () => {
  it.each([
    [
      'Prisma failing to reach Postgres',
      Object.assign(new Error("\nInvalid `prisma.$queryRaw()` invocation:\n\nCan't reach database server at 10.0.0.5:5432"), {
        name: 'PrismaClientKnownRequestError',
        code: 'P1001',
      }),
      'unavailable',
    ],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:6379'), { code: 'ECONNREFUSED' }), 'connection refused'],
    ['a short reason of our own', new Error('producer not connected'), 'producer not connected'],
    ['a check timeout', new Error('timed out after 2000 ms'), 'timed out after 2000 ms'],
    ['a message naming an address', new Error('no route to 10.0.0.5'), 'unavailable'],
    ['a long driver message', new Error(`database "x" does not exist\n${'detail '.repeat(30)}`), 'unavailable'],
  ])('when a check fails with %s, then /readyz shows %p', (_what, err, reason) => {
    expect(readinessReason(err)).toBe(reason);
  });
});
