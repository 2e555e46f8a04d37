// The shapes of what sites and callers send us, checked in the public schemas (@glimpse/api), on
// the topics (@glimpse/messaging) and by the services: kept here, in a package with no
// infrastructure, so the public API can apply them without depending on Kafka.

/** An event name: 1 to 64 letters, digits, _ . : - (POST /events, playbook triggers, page rules, tracked events). */
export const EVENT_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The ids the site tag makes for what it collects (page views, engagement, tracked events). */
export const COLLECTED_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** A visitor id (the _glv cookie): 24 lower-case hex digits. */
export const VISITOR_ID_PATTERN = /^[a-f0-9]{24}$/;

/** The most engaged time one engagement message may add (30 minutes). */
export const ENGAGED_SECONDS_MAX = 1800;
