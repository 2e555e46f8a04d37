// An event name as the API accepts it (the gateway's own rule, checked here first so the person
// is told which name is wrong before anything is sent).
export const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

export const notAnEventName = (name: string): string => `“${name}” is not a valid event name: 1 to 64 letters, digits, _ . : -`;
