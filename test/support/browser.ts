// The real headless Chromium the browser tests drive (Debian's `chromium`, through playwright-core).
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { chromiumPath } from '../config';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches Chromium. On a machine without it, throws at once (before anything else a caller starts
 * after it): the tests fail, never skip. `what` names the tests.
 */
export function launchChromium(what: string): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!fs.existsSync(executablePath)) {
    throw new Error(
      `Chromium is required for ${what} but ${executablePath} does not exist: npm test installs it (scripts/infra/chromium.js), or run \`apt-get install -y chromium\` or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath, args: ARGS });
}
