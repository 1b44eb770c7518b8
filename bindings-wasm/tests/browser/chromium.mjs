// Headless Chromium for the browser tests: Debian's `chromium` (or `LRO_CHROMIUM`), driven by
// playwright-core (which downloads no browser of its own), and the static server beside it.
import { chromium } from "playwright-core";

import { serve } from "./static-server.mjs";

export const CHROMIUM = process.env.LRO_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Starts the static server and a headless Chromium; `close()` stops both. Chromium's sandbox
 * cannot start as root (CI runs as root), so there it runs with --no-sandbox.
 */
export async function openBrowser() {
  const { server, origin } = await serve();
  let browser;
  try {
    const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
  } catch (err) {
    server.close();
    throw err;
  }
  return {
    browser,
    origin,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
