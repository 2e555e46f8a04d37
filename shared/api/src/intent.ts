// Intent scores in the API: the {score, reasons} answered with visitors and companies, and the
// account's weights (GET and PUT /account/intent, answered by the visitors service). The console,
// the typed client and the OpenAPI document derive from these schemas.
import { z } from 'zod';
import { EVENT_NAME_PATTERN } from '@glimpse/validation';

export const INTENT_HALF_LIFE_DAYS = { min: 0.5, max: 90, default: 7 } as const;
export const INTENT_WEIGHT_MAX = 100;
export const INTENT_EVENT_WEIGHTS_MAX = 100;

export const intentReasonSchema = z
  .object({
    reason: z.string().meta({ description: 'what was seen, e.g. "Visited /pricing* (page rule)", "3 sessions", "4 min engaged", "Tracked demo_requested"' }),
    points: z.int().min(1).max(100).meta({ description: "this reason's share of the score now (decayed); the reasons' points add up to the score" }),
    at: z.iso.datetime().meta({ description: 'when it last happened' }),
  })
  .meta({ id: 'IntentReason' });

export const intentSchema = z
  .object({
    score: z.int().min(0).max(100).meta({ description: 'the decayed sum of what was seen, weighted, at most 100, rounded' }),
    reasons: z.array(intentReasonSchema).meta({ description: 'the reason for every point, best first' }),
  })
  .meta({ id: 'Intent', description: 'an intent score and its reasons (README "Intent scores")' });

const weight = (name: string, what: string) =>
  z
    .number({ error: `${name} must be a number from 0 to ${INTENT_WEIGHT_MAX}` })
    .min(0, `${name} must be a number from 0 to ${INTENT_WEIGHT_MAX}`)
    .max(INTENT_WEIGHT_MAX, `${name} must be a number from 0 to ${INTENT_WEIGHT_MAX}`)
    .meta({ description: what });

const eventWeights = z
  .record(z.string().regex(EVENT_NAME_PATTERN, 'event_weights keys must be event names: 1 to 64 letters, digits, _ . : -'), weight('an event weight', 'points'))
  .refine((o) => Object.keys(o).length <= INTENT_EVENT_WEIGHTS_MAX, `event_weights has at most ${INTENT_EVENT_WEIGHTS_MAX} events`)
  .meta({ description: 'points per tracked event, by event name (an event without a weight scores nothing)' });

const halfLife = z
  .number({ error: `half_life_days must be a number from ${INTENT_HALF_LIFE_DAYS.min} to ${INTENT_HALF_LIFE_DAYS.max}` })
  .min(INTENT_HALF_LIFE_DAYS.min, `half_life_days must be a number from ${INTENT_HALF_LIFE_DAYS.min} to ${INTENT_HALF_LIFE_DAYS.max}`)
  .max(INTENT_HALF_LIFE_DAYS.max, `half_life_days must be a number from ${INTENT_HALF_LIFE_DAYS.min} to ${INTENT_HALF_LIFE_DAYS.max}`)
  .meta({ description: 'every point loses half its worth per half-life (default 7 days)' });

export const intentSettingsInputSchema = z
  .strictObject(
    {
      half_life_days: halfLife.optional(),
      page_view_weight: weight('page_view_weight', 'points per page view (default 1)').optional(),
      session_weight: weight('session_weight', 'points per session (default 3)').optional(),
      engaged_minute_weight: weight('engaged_minute_weight', 'points per minute of engaged time (default 1)').optional(),
      event_weights: eventWeights.optional(),
    },
    {
      error: (i) =>
        i.code === 'unrecognized_keys'
          ? `unknown field(s): ${i.keys.join(', ')}; send {half_life_days, page_view_weight, session_weight, engaged_minute_weight, event_weights}`
          : 'body must be a JSON object',
    },
  )
  .meta({ id: 'IntentSettingsInput', description: 'the fields to change (the others keep their values); a change re-scores the account within minutes' });
export type IntentSettingsInput = z.infer<typeof intentSettingsInputSchema>;

export const intentSettingsSchema = z
  .object({
    half_life_days: z.number(),
    page_view_weight: z.number(),
    session_weight: z.number(),
    engaged_minute_weight: z.number(),
    event_weights: z.record(z.string(), z.number()),
    updated_at: z.iso.datetime().nullable().meta({ description: 'when a weight (a page rule weight too) or the half-life last changed; null: the defaults' }),
    rescored_at: z.iso
      .datetime()
      .nullable()
      .meta({ description: "when the account's scores were last recomputed with these weights (before updated_at: a re-scoring is due)" }),
  })
  .meta({ id: 'IntentSettings', description: "the weights of the account's intent scores; page rules carry their own (weight)" });

export type IntentReasonView = z.infer<typeof intentReasonSchema>;
export type IntentView = z.infer<typeof intentSchema>;
export type IntentSettingsView = z.infer<typeof intentSettingsSchema>;
