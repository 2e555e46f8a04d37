// The placeholder the gateway replaces in the minified tag: the site's settings, or nothing (tag-asset.ts).
declare const GLIMPSE_SETTINGS: unknown;
