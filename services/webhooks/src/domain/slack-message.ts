// The Slack message of a segment alert, made from the webhook payload (segment-payload.ts) when it
// is sent: Block Kit blocks (typed by @slack/types, within the limits of slack-blocks.ts) and the
// notification's text. segment.entered: who (the company, or the person or visitor), the score and
// its top reasons, where, the last pages, and a button to the member in the console. A digest: one
// message per segment with its new members, members now and the top scores, each linked.
//
// Values come from visitors' pages and the data (titles, names): in mrkdwn they are escaped (&, <,
// > are Slack's control characters) and cut to fit, so no value can break a block or forge a link.
import type { SegmentAlertPayload, SegmentDigestPayload, SegmentEnteredPayload } from '@glimpse/api';
import type { KnownBlock } from '@slack/types';
import { BLOCK_LIMITS, type SlackMessage } from './slack-blocks.js';

type Member = SegmentEnteredPayload['data']['member'];

const REASONS_SHOWN = 3;
const PAGES_SHOWN = 3;

/** Text for a mrkdwn field: Slack's control characters escaped. */
export const escapeMrkdwn = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Cut to at most `max` characters (an ellipsis marking the cut). */
export const cut = (value: string, max: number): string => (value.length <= max ? value : `${value.slice(0, max - 1)}…`);

/** A mrkdwn link whose label is escaped (a | or > in it would end the link early). */
const link = (url: string, label: string): string => `<${url}|${escapeMrkdwn(label).replace(/\|/g, '¦')}>`;

/** Slack shows a date in the reader's own time zone; the fallback is for clients that cannot. */
const slackDate = (iso: string): string => `<!date^${Math.floor(Date.parse(iso) / 1000)}^{date_short_pretty} {time}|${iso.slice(0, 16).replace('T', ' ')} UTC>`;

/** Who the member is, as a heading says it. */
export function memberTitle(m: Member): string {
  if (m.kind === 'company') return m.name ?? m.domain ?? m.key;
  if (m.email) return m.email;
  return m.name ? `A visitor from ${m.name}` : `Visitor ${m.key}`;
}

function placeOf(m: Member): string | null {
  const parts = [m.location?.city, m.location?.region, m.location?.country].filter((p): p is string => !!p);
  return parts.length ? parts.join(', ') : null;
}

/** The member's page in the console (its hash routes: #/companies?company=…, #/visitors?visitor=…). */
export function consoleLinkOf(consoleUrl: string, m: Member): string {
  const url = new URL(consoleUrl);
  url.hash = m.kind === 'company' ? `/companies?${new URLSearchParams({ company: m.key })}` : `/visitors?${new URLSearchParams({ visitor: m.key })}`;
  return url.toString();
}

function segmentLinkOf(consoleUrl: string, segmentId: string): string {
  const url = new URL(consoleUrl);
  url.hash = `/segments?${new URLSearchParams({ segment: segmentId })}`;
  return url.toString();
}

const mrkdwn = (text: string) => ({ type: 'mrkdwn' as const, text: cut(text, BLOCK_LIMITS.fieldText) });
const header = (text: string): KnownBlock => ({ type: 'header', text: { type: 'plain_text', text: cut(text, BLOCK_LIMITS.headerText), emoji: false } });
const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text: cut(text, BLOCK_LIMITS.sectionText) } });
const button = (text: string, url: string, actionId: string, primary = false): KnownBlock => ({
  type: 'actions',
  elements: [
    {
      type: 'button',
      text: { type: 'plain_text', text: cut(text, BLOCK_LIMITS.buttonText) },
      url,
      action_id: actionId,
      ...(primary ? { style: 'primary' as const } : {}),
    },
  ],
});

/** The heading and as many whole lines as fit in `max` characters (a line is never cut: it may hold a link). */
function fitLines(heading: string, lines: string[], max: number): string {
  let text = heading;
  for (const line of lines) {
    if (text.length + 1 + line.length > max) break;
    text += `\n${line}`;
  }
  return text;
}

function reasonLines(m: Member): string {
  const shown = m.reasons.slice(0, REASONS_SHOWN);
  if (shown.length === 0) return '_no reasons recorded_';
  return shown.map((r) => `• ${escapeMrkdwn(cut(r.reason, 200))}: *${Math.round(r.points)}* pts`).join('\n');
}

function pageLines(m: Member): string | null {
  const shown = m.last_pages.slice(0, PAGES_SHOWN);
  if (shown.length === 0) return null;
  return shown
    .map((p) => `• \`${escapeMrkdwn(cut(p.path, 200)).replace(/`/g, "'")}\`${p.title ? ` ${escapeMrkdwn(cut(p.title, 120))}` : ''}, ${slackDate(p.at)}`)
    .join('\n');
}

function enteredMessage(payload: SegmentEnteredPayload, consoleUrl: string): SlackMessage {
  const { member: m, segment } = payload.data;
  const who = memberTitle(m);
  const score = Math.round(m.score);
  const fields = [mrkdwn(`*Intent score*\n${score} / 100`), mrkdwn(`*Location*\n${escapeMrkdwn(placeOf(m) ?? 'unknown')}`)];
  if (m.kind === 'visitor' && (m.name || m.domain))
    fields.push(mrkdwn(`*Company*\n${escapeMrkdwn([m.name, m.domain && `(${m.domain})`].filter(Boolean).join(' '))}`));
  if (m.kind === 'company') fields.push(mrkdwn(`*Visitors*\n${m.visitors}`), ...(m.domain ? [mrkdwn(`*Domain*\n${escapeMrkdwn(m.domain)}`)] : []));
  const pages = pageLines(m);
  const blocks: KnownBlock[] = [
    header(`${who} entered ${segment.name}`),
    { type: 'section', fields },
    section(`*Why the score*\n${reasonLines(m)}`),
    ...(pages ? [section(`*Last pages*\n${pages}`)] : []),
    button(m.kind === 'company' ? 'Open the company in Glimpse' : 'Open the visitor in Glimpse', consoleLinkOf(consoleUrl, m), 'open_member', true),
    { type: 'context', elements: [mrkdwn(`Segment *${escapeMrkdwn(segment.name)}* · entered ${slackDate(payload.timestamp)}`)] },
  ];
  return { text: cut(escapeMrkdwn(`${who} entered ${segment.name} (intent score ${score})`), 3000), blocks };
}

function digestMessage(payload: SegmentDigestPayload, consoleUrl: string): SlackMessage {
  const { segment, day, new_members: fresh, members, top } = payload.data;
  const lines = top.map((m, i) => {
    const reason = m.reasons[0] ? `: ${escapeMrkdwn(cut(m.reasons[0].reason, 120))}` : '';
    return `${i + 1}. ${link(consoleLinkOf(consoleUrl, m), cut(memberTitle(m), 120))}, *${Math.round(m.score)}*${reason}`;
  });
  const blocks: KnownBlock[] = [
    header(`${segment.name}: daily digest`),
    {
      type: 'section',
      fields: [mrkdwn(`*New members*\n${fresh}`), mrkdwn(`*Members now*\n${members}`)],
    },
    section(lines.length ? fitLines('*Top scores*', lines, BLOCK_LIMITS.sectionText) : '_No members yet._'),
    button('Open the segment in Glimpse', segmentLinkOf(consoleUrl, segment.id), 'open_segment', true),
    { type: 'context', elements: [mrkdwn(`Segment *${escapeMrkdwn(segment.name)}* · ${day}`)] },
  ];
  return { text: cut(escapeMrkdwn(`${segment.name}, ${day}: ${fresh} new, ${members} members`), 3000), blocks };
}

/** The Slack message of an alert payload. */
export function slackMessageOf(payload: SegmentAlertPayload, consoleUrl: string): SlackMessage {
  return payload.type === 'segment.entered' ? enteredMessage(payload, consoleUrl) : digestMessage(payload, consoleUrl);
}
