import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, which `.ci/run` installs where it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** The two sizes every page must work at: a phone and a laptop. */
export const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
] as const;

/**
 * Whether the browser tests can run here. Without Chromium they are skipped with a warning,
 * except in CI, where `.ci/run` has installed it and its absence is a failure.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) {
    return true;
  }
  if (process.env.CI === 'true') {
    throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium).`);
  }
  console.warn(
    `Browser tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium, as .ci/run does).`,
  );
  return false;
}

/** Chromium headless, without the sandbox (containers) and without any call home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
