import { AppError, toAppError } from './app-error';
import { dependencyFailure } from './dependency-error';

/** An error shaped as the library raises it (name, code, meta as observed from the real drivers). */
function libraryError(name: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { name }, extra);
}

const prismaUnreachable = libraryError('PrismaClientKnownRequestError', 'Invalid `db.eventToken.findUnique()` invocation …', {
  code: 'P1001',
  meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 1 } } },
});
const prismaStatementTimeout = libraryError('PrismaClientKnownRequestError', 'Raw query failed. Code: `57014`.', {
  code: 'P2010',
  meta: { driverAdapterError: { cause: { originalCode: '57014', kind: 'postgres', code: '57014' } } },
});
const prismaUniqueViolation = libraryError('PrismaClientKnownRequestError', 'Unique constraint failed', { code: 'P2002', meta: { target: ['hash'] } });

describe('toAppError', () => {
  it.each([
    ['Postgres unreachable through Prisma', prismaUnreachable, 'unreachable'],
    ['a statement timeout through Prisma', prismaStatementTimeout, 'timed out'],
    [
      'a pg connection timeout (a server that accepts and never answers)',
      libraryError('Error', 'Connection terminated due to connection timeout'),
      'timed out',
    ],
    ['a pg query read timeout', libraryError('Error', 'Query read timeout'), 'timed out'],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'connection refused'],
    ['Redis without a connection', new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'unavailable'],
    ['a Redis command timeout', new Error('Command timed out'), 'timed out'],
    ['a Kafka request timeout', libraryError('KafkaJSRequestTimeoutError', 'Request Produce(key: 0, version: 7) timed out'), 'timed out'],
    [
      'an internal service that does not answer',
      libraryError('HeadersTimeoutError', 'Headers Timeout Error', { code: 'UND_ERR_HEADERS_TIMEOUT' }),
      'timed out',
    ],
    ['a failure wrapped in another error', new Error('lookup failed', { cause: prismaUnreachable }), 'unreachable'],
    [
      'a deadlock in an interactive transaction (Prisma P2034)',
      libraryError('PrismaClientKnownRequestError', 'Transaction failed due to a write conflict or a deadlock. Please retry your transaction', {
        code: 'P2034',
      }),
      'contended',
    ],
    [
      'a deadlock Postgres reported through the adapter',
      libraryError('PrismaClientKnownRequestError', 'Raw query failed. Code: `40P01`.', {
        code: 'P2010',
        meta: { driverAdapterError: { cause: { originalCode: '40P01', kind: 'postgres', code: '40P01' } } },
      }),
      'contended',
    ],
    [
      'a serialization failure from node-postgres',
      libraryError('error', 'could not serialize access due to concurrent update', { code: '40001' }),
      'contended',
    ],
  ])('when the error is %s, then it is 503 service_unavailable with Retry-After and a short reason', (_what, err, reason) => {
    const app = toAppError(err);
    expect(app).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': '1' } });
    expect(app.message).not.toContain('127.0.0.1');
    expect(dependencyFailure(err)).toBe(reason);
  });

  it.each([
    [
      'an undecodable path parameter (express router)',
      Object.assign(new Error("Failed to decode param '%ZZ'"), { status: 400, statusCode: 400 }),
      400,
      'invalid_request',
    ],
    ['a URIError', new URIError('URI malformed'), 400, 'invalid_request'],
    [
      'a body shorter than its Content-Length',
      Object.assign(new Error('request size did not match content length'), { type: 'request.size.invalid', status: 400 }),
      400,
      'invalid_request',
    ],
    [
      'an unsupported charset',
      Object.assign(new Error('unsupported charset "UTF-7"'), { type: 'charset.unsupported', status: 415 }),
      415,
      'unsupported_media_type',
    ],
    ['an unknown http-errors 4xx', Object.assign(new Error('odd'), { status: 418 }), 400, 'invalid_request'],
  ])('when the error is %s, then it is the client error %p', (_what, err, status, code) => {
    const app = toAppError(err);
    expect({ status: app.status, code: app.code }).toEqual({ status, code });
    expect(app.message).not.toMatch(/%ZZ|UTF-7/);
  });

  it('when the error is a bug (a constraint violation, a TypeError), then it is a generic 500', () => {
    for (const err of [prismaUniqueViolation, new TypeError("Cannot read properties of undefined (reading 'x')")]) {
      expect(toAppError(err)).toMatchObject({ status: 500, code: 'internal_error', message: 'an unexpected error occurred' });
      expect(dependencyFailure(err)).toBeNull();
    }
  });

  it('when the error is an AppError, then it is kept as thrown', () => {
    const err = new AppError('idempotency_key_reused', 'x');
    expect(toAppError(err)).toBe(err);
    expect(err.status).toBe(422);
  });
});
