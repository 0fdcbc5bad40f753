import { chromium, type Browser } from 'playwright-core';
import { ensureDebianPackage, INSTALL_SETUP_TIMEOUT } from './debian';

/** Debian's Chromium: `apt-get install chromium`. playwright-core drives it; it downloads no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

/** Installing Chromium downloads ~100 MB: give a hook this long (`beforeAll(fn, BROWSER_SETUP_TIMEOUT)`). */
export const BROWSER_SETUP_TIMEOUT = INSTALL_SETUP_TIMEOUT;

/** Chromium is there when this returns: installed once per machine by whichever test file asks first. */
export const ensureChromium = (): Promise<void> => ensureDebianPackage(CHROMIUM, 'chromium');

/** A headless Chromium, installed first if need be. Close it in `afterAll`. */
export async function launchBrowser(): Promise<Browser> {
  await ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      // The tests run as root, where Chromium's sandbox cannot start.
      '--no-sandbox',
      // Software rendering in one colour profile, without subpixel text: the same pixels every
      // run, so docs/widget.png changes only when the widget does.
      '--disable-gpu',
      '--force-color-profile=srgb',
      '--disable-partial-raster',
      '--disable-lcd-text',
    ],
  });
}
