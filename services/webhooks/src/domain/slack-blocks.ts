// The part of Slack's Block Kit the alerts use (header, section, context, divider, actions with link
// buttons) as a zod schema, with Slack's published limits, so a built message can be checked at run
// time (tests; Slack refuses a message over a limit with a 400 invalid_blocks). Each object is the
// same shape as @slack/types' (HeaderBlock, SectionBlock, ContextBlock, DividerBlock, ActionsBlock,
// Button, PlainTextElement, MrkdwnElement): the assignments at the end make the compiler prove that
// whatever the schema accepts is a KnownBlock.
import type { ActionsBlock, Button, ContextBlock, DividerBlock, HeaderBlock, KnownBlock, MrkdwnElement, PlainTextElement, SectionBlock } from '@slack/types';
import { z } from 'zod';

/** Slack's limits (docs.slack.dev, Block Kit reference). */
export const BLOCK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonUrl: 3000,
  actionId: 255,
  blockId: 255,
} as const;

const plainText = (max: number) => z.strictObject({ type: z.literal('plain_text'), text: z.string().min(1).max(max), emoji: z.boolean().optional() });
const mrkdwn = (max: number) => z.strictObject({ type: z.literal('mrkdwn'), text: z.string().min(1).max(max), verbatim: z.boolean().optional() });
const text = (max: number) => z.discriminatedUnion('type', [plainText(max), mrkdwn(max)]);
const blockId = z.string().min(1).max(BLOCK_LIMITS.blockId).optional();

export const headerBlockSchema = z.strictObject({ type: z.literal('header'), block_id: blockId, text: plainText(BLOCK_LIMITS.headerText) });
export const sectionBlockSchema = z
  .strictObject({
    type: z.literal('section'),
    block_id: blockId,
    text: text(BLOCK_LIMITS.sectionText).optional(),
    fields: z.array(text(BLOCK_LIMITS.fieldText)).min(1).max(BLOCK_LIMITS.fields).optional(),
  })
  .refine((s) => s.text !== undefined || s.fields !== undefined, { message: 'a section needs text or fields' });
export const contextBlockSchema = z.strictObject({
  type: z.literal('context'),
  block_id: blockId,
  elements: z.array(text(BLOCK_LIMITS.sectionText)).min(1).max(BLOCK_LIMITS.contextElements),
});
export const dividerBlockSchema = z.strictObject({ type: z.literal('divider'), block_id: blockId });
export const buttonSchema = z.strictObject({
  type: z.literal('button'),
  text: plainText(BLOCK_LIMITS.buttonText),
  url: z
    .url({ protocol: /^https?$/ })
    .max(BLOCK_LIMITS.buttonUrl)
    .optional(),
  action_id: z.string().min(1).max(BLOCK_LIMITS.actionId).optional(),
  value: z.string().max(2000).optional(),
  style: z.enum(['primary', 'danger']).optional(),
});
export const actionsBlockSchema = z.strictObject({
  type: z.literal('actions'),
  block_id: blockId,
  elements: z.array(buttonSchema).min(1).max(BLOCK_LIMITS.actionsElements),
});

export const blockSchema = z.union([headerBlockSchema, sectionBlockSchema, contextBlockSchema, dividerBlockSchema, actionsBlockSchema]);

/** What is posted to an incoming webhook: the notification's text and the blocks. */
export const slackMessageSchema = z.strictObject({
  text: z.string().min(1).max(3000),
  blocks: z.array(blockSchema).min(1).max(BLOCK_LIMITS.blocks),
});
export type SlackMessage = { text: string; blocks: KnownBlock[] };

// The compiler's proof that the schema is a subset of @slack/types: each parsed shape is
// assignable to Slack's own type (a field added to the schema that Slack's type lacks, or of
// another type, fails the build).
type Is<T> = (value: T) => void;
const proofs: [
  Is<z.infer<typeof headerBlockSchema>>,
  Is<z.infer<typeof sectionBlockSchema>>,
  Is<z.infer<typeof contextBlockSchema>>,
  Is<z.infer<typeof dividerBlockSchema>>,
  Is<z.infer<typeof actionsBlockSchema>>,
  Is<z.infer<typeof buttonSchema>>,
  Is<z.infer<ReturnType<typeof plainText>>>,
  Is<z.infer<ReturnType<typeof mrkdwn>>>,
  Is<z.infer<typeof blockSchema>>,
] = [
  (b): HeaderBlock => b,
  (b): SectionBlock => b,
  (b): ContextBlock => b,
  (b): DividerBlock => b,
  (b): ActionsBlock => b,
  (b): Button => b,
  (t): PlainTextElement => t,
  (t): MrkdwnElement => t,
  (b): KnownBlock => b,
];
void proofs;
