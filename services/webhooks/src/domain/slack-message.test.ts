import type { KnownBlock } from '@slack/types';
import { segmentDigestSchema, segmentEnteredSchema, type SegmentMemberMessage } from '@glimpse/messaging';
import { segmentAlertPayloadOf } from './segment-payload';
import { BLOCK_LIMITS, slackMessageSchema } from './slack-blocks';
import { escapeMrkdwn, slackMessageOf } from './slack-message';

const CONSOLE = 'https://app.glimpse.example/console/';
const ACCOUNT = '0b9d5a2e-6a51-4c43-9d0c-7c1f3c0e2a11';
const SEGMENT = '5f0c1f7e-2a6b-4b0e-8c43-3f1f6a0b9d21';

function member(fields: Partial<SegmentMemberMessage> = {}): SegmentMemberMessage {
  return {
    kind: 'company',
    key: 'acme.example',
    name: 'Acme Corp',
    domain: 'acme.example',
    email: null,
    score: 87,
    reasons: [
      { reason: 'Visited /pricing* (page rule)', points: 60, at: '2026-11-28T09:00:00.000Z' },
      { reason: '3 sessions', points: 20, at: '2026-11-28T08:00:00.000Z' },
      { reason: '4 min engaged', points: 5, at: '2026-11-28T08:00:00.000Z' },
      { reason: 'Tracked demo_requested', points: 2, at: '2026-11-27T08:00:00.000Z' },
    ],
    location: { country: 'GB', region: 'England', city: 'London', time_zone: 'Europe/London' },
    lastPages: [
      { path: '/pricing', title: 'Pricing', at: '2026-11-28T09:00:00.000Z' },
      { path: '/docs/install', title: null, at: '2026-11-28T08:59:00.000Z' },
    ],
    visitors: 3,
    ...fields,
  };
}

const entered = (m: SegmentMemberMessage, segmentName = 'Hot accounts') =>
  segmentEnteredSchema.parse({
    type: 'segment.entered',
    eventId: 'a4c5b8f2-1d3e-4f5a-9b6c-7d8e9f0a1b2c',
    accountId: ACCOUNT,
    segmentId: SEGMENT,
    segmentName,
    segmentKind: m.kind === 'company' ? 'companies' : 'visitors',
    windowStart: '2026-11-28T00:00:00.000Z',
    at: '2026-11-28T09:00:01.000Z',
    member: m,
  });

/** Every text a message shows, flattened (mrkdwn and plain text alike). */
function texts(blocks: KnownBlock[]): string {
  return JSON.stringify(blocks);
}

/** The compiler checks the builder's answer is Slack's type; the schema checks it at run time. */
function valid(message: { text: string; blocks: KnownBlock[] }) {
  const parsed = slackMessageSchema.safeParse(message);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

describe('Slack messages of segment alerts', () => {
  it('when a company enters a segment, then the message is valid Block Kit with its name, score, top three reasons, location, last pages and a button to its console page', () => {
    const message = slackMessageOf(segmentAlertPayloadOf(entered(member())), CONSOLE);
    const blocks: KnownBlock[] = valid(message).blocks;

    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Acme Corp entered Hot accounts', emoji: false } });
    const all = texts(blocks);
    expect(all).toContain('87 / 100');
    expect(all).toContain('Visited /pricing* (page rule): *60* pts');
    expect(all).toContain('3 sessions: *20* pts');
    expect(all).toContain('4 min engaged: *5* pts');
    expect(all).not.toContain('demo_requested');
    expect(all).toContain('London, England, GB');
    expect(all).toContain('`/pricing` Pricing');
    expect(all).toContain('`/docs/install`');
    const actions = blocks.find((b) => b.type === 'actions');
    expect(actions).toMatchObject({
      elements: [{ type: 'button', url: 'https://app.glimpse.example/console/#/companies?company=acme.example', style: 'primary' }],
    });
    expect(message.text).toBe('Acme Corp entered Hot accounts (intent score 87)');
  });

  it('when an identified visitor enters a segment, then the heading names their email, the company is a field and the button opens the visitor', () => {
    const visitor = member({ kind: 'visitor', key: 'a1b2c3d4e5f6a7b8c9d0e1f2', email: 'ada@acme.example', visitors: 1 });
    const { blocks } = valid(slackMessageOf(segmentAlertPayloadOf(entered(visitor)), CONSOLE));

    expect(blocks[0]).toMatchObject({ text: { text: 'ada@acme.example entered Hot accounts' } });
    expect(texts(blocks)).toContain('Acme Corp (acme.example)');
    expect(blocks.find((b) => b.type === 'actions')).toMatchObject({
      elements: [{ url: 'https://app.glimpse.example/console/#/visitors?visitor=a1b2c3d4e5f6a7b8c9d0e1f2' }],
    });
  });

  it('when an anonymous visitor with no location, reasons or pages enters, then the message still validates and says what is unknown', () => {
    const anonymous = member({ kind: 'visitor', key: 'f'.repeat(24), name: null, domain: null, reasons: [], location: null, lastPages: [], visitors: 1 });
    const { blocks } = valid(slackMessageOf(segmentAlertPayloadOf(entered(anonymous)), CONSOLE));

    expect(blocks[0]).toMatchObject({ text: { text: `Visitor ${'f'.repeat(24)} entered Hot accounts` } });
    expect(texts(blocks)).toContain('unknown');
    expect(texts(blocks)).toContain('no reasons recorded');
    expect(blocks.some((b) => JSON.stringify(b).includes('Last pages'))).toBe(false);
  });

  it("when names, titles and paths hold Slack's control characters or are long, then they are escaped and cut to Slack's limits", () => {
    const hostile = member({
      name: `<!channel> & <https://evil.example|click> ${'x'.repeat(250)}`,
      lastPages: [{ path: '/a?<b>&`c`', title: '<@U123> hi', at: '2026-11-28T09:00:00.000Z' }],
    });
    const { blocks } = valid(slackMessageOf(segmentAlertPayloadOf(entered(hostile, 's'.repeat(200))), CONSOLE));

    const header = blocks[0] as { text: { text: string } };
    expect(header.text.text.length).toBeLessThanOrEqual(BLOCK_LIMITS.headerText);
    const mrkdwnTexts = JSON.stringify(blocks.slice(1));
    expect(mrkdwnTexts).not.toContain('<!channel>');
    expect(mrkdwnTexts).not.toContain('<@U123>');
    expect(mrkdwnTexts).toContain('&lt;@U123&gt; hi');
    expect(mrkdwnTexts).toContain('/a?&lt;b&gt;&amp;');
    expect(escapeMrkdwn('a<b>&c')).toBe('a&lt;b&gt;&amp;c');
  });

  it('when a digest is made, then it is one message with the new members, members now and the top scores, each linked to its page', () => {
    const digest = segmentDigestSchema.parse({
      type: 'segment.digest',
      eventId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      accountId: ACCOUNT,
      segmentId: SEGMENT,
      segmentName: 'Hot accounts',
      segmentKind: 'companies',
      day: '2026-11-28',
      newMembers: 4,
      members: 17,
      top: [member(), member({ key: 'globex.example', name: 'Globex', domain: 'globex.example', score: 55 })],
      at: '2026-11-28T09:00:00.000Z',
    });
    const { blocks, text } = valid(slackMessageOf(segmentAlertPayloadOf(digest), CONSOLE));

    expect(blocks[0]).toMatchObject({ type: 'header', text: { text: 'Hot accounts: daily digest' } });
    const all = texts(blocks);
    expect(all).toContain('*New members*\\n4');
    expect(all).toContain('*Members now*\\n17');
    expect(all).toContain('1. <https://app.glimpse.example/console/#/companies?company=acme.example|Acme Corp>, *87*: Visited /pricing* (page rule)');
    expect(all).toContain('2. <https://app.glimpse.example/console/#/companies?company=globex.example|Globex>, *55*');
    expect(blocks.find((b) => b.type === 'actions')).toMatchObject({
      elements: [{ url: `https://app.glimpse.example/console/#/segments?segment=${SEGMENT}` }],
    });
    expect(text).toBe('Hot accounts, 2026-11-28: 4 new, 17 members');
  });

  it('when a digest has ten long members, then the top scores keep whole lines within the section limit', () => {
    const long = (i: number) =>
      member({
        key: `${'k'.repeat(280)}${i}`,
        name: 'n'.repeat(290),
        score: 50,
        reasons: [{ reason: 'r'.repeat(200), points: 50, at: '2026-11-28T09:00:00.000Z' }],
      });
    const digest = segmentDigestSchema.parse({
      type: 'segment.digest',
      eventId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      accountId: ACCOUNT,
      segmentId: SEGMENT,
      segmentName: 'Hot accounts',
      segmentKind: 'companies',
      day: '2026-11-28',
      newMembers: 10,
      members: 10,
      top: Array.from({ length: 10 }, (_, i) => long(i)),
      at: '2026-11-28T09:00:00.000Z',
    });
    const { blocks } = valid(slackMessageOf(segmentAlertPayloadOf(digest), CONSOLE));
    const top = blocks.find((b) => JSON.stringify(b).includes('Top scores')) as { text: { text: string } };
    const lines = top.text.text.split('\n').slice(1);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(10);
    for (const line of lines) expect(line).toMatch(/^\d+\. <[^>]+>, \*50\*: r+…$/);
  });

  it('when a message breaks a Block Kit limit, then the schema refuses it (the check can fail)', () => {
    expect(slackMessageSchema.safeParse({ text: 'x', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }] }).success).toBe(false);
    expect(slackMessageSchema.safeParse({ text: 'x', blocks: [{ type: 'section' }] }).success).toBe(false);
    expect(
      slackMessageSchema.safeParse({ text: 'x', blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'mrkdwn', text: 'b' } }] }] }).success,
    ).toBe(false);
    expect(slackMessageSchema.safeParse({ text: 'x', blocks: [{ type: 'image', image_url: 'https://x' }] }).success).toBe(false);
  });
});
