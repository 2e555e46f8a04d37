import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { runWithContext } from './request-context';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'test', destination }) };
}

describe('logger', () => {
  it('when a line carries personal data, then emails, phones, properties and credentials are redacted', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        email: 'ann@example.com',
        event: { email: 'bob@example.com', properties: { plan: 'pro' } },
        headers: { authorization: 'Bearer glet_secret' },
        phone: '+14155550134',
      },
      'received',
    );
    const out = lines.join('');
    expect(out).not.toMatch(/ann@example\.com|bob@example\.com|glet_secret|\+14155550134|"pro"/);
    expect(out).toContain('[redacted]');
  });

  it('when a line carries a site as the collect path knows it, or an answer with its identity secret, then the secrets are redacted', () => {
    const { lines, logger } = capture();
    logger.info(
      { site: { id: 's', identity: { identitySecret: 'gis_current', previousIdentitySecret: 'gis_previous' } }, body: { identity_secret: 'gis_new' } },
      'site',
    );
    expect(lines.join('')).not.toMatch(/gis_current|gis_previous|gis_new/);
  });

  it("when a line carries what the site tag collected, then the visitor's address, user agent, referrer, traits and cookies are redacted", () => {
    const { lines, logger } = capture();
    logger.warn(
      {
        message: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 Secret', referrer: 'https://mail.example/?u=ann', traits: { plan: 'gold' } },
        headers: { 'set-cookie': '_glv=abc123', 'x-forwarded-for': '198.51.100.9' },
      },
      'collected',
    );
    const out = lines.join('');
    expect(out).not.toMatch(/203\.0\.113\.7|Mozilla\/5\.0 Secret|mail\.example|gold|_glv=abc123|198\.51\.100\.9/);
  });

  it('when logging inside a request context, then the line names the request id', () => {
    const { lines, logger } = capture();
    runWithContext({ requestId: 'req-123' }, () => logger.info('hello'));
    expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: 'req-123', service: 'test', msg: 'hello' });
  });
});
