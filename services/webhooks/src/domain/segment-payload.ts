// What a segment alert on visitors.segments becomes on the wire: @glimpse/api's
// SegmentEnteredPayload or SegmentDigestPayload (Standard Webhooks' {type, timestamp, data}, in the
// API's snake_case). A Slack endpoint is sent a Block Kit message made from the same payload
// (slack-message.ts), so both kinds say the same thing.
import { alertMemberOf, type SegmentAlertPayload, type SegmentDigestPayload, type SegmentEnteredPayload } from '@glimpse/api';
import type { SegmentAlertMessage, SegmentDigestMessage, SegmentEnteredMessage } from '@glimpse/messaging';

const segmentOf = (m: SegmentAlertMessage) => ({ id: m.segmentId, name: m.segmentName, kind: m.segmentKind });

function enteredPayloadOf(m: SegmentEnteredMessage): SegmentEnteredPayload {
  return { type: 'segment.entered', timestamp: m.at, data: { segment: segmentOf(m), window_start: m.windowStart, member: alertMemberOf(m.member) } };
}

function digestPayloadOf(m: SegmentDigestMessage): SegmentDigestPayload {
  return {
    type: 'segment.digest',
    timestamp: m.at,
    data: { segment: segmentOf(m), day: m.day, new_members: m.newMembers, members: m.members, top: m.top.map(alertMemberOf) },
  };
}

export function segmentAlertPayloadOf(message: SegmentAlertMessage): SegmentAlertPayload {
  return message.type === 'segment.entered' ? enteredPayloadOf(message) : digestPayloadOf(message);
}
