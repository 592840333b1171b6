/**
 * The dashboard in a real browser for the tests and bench/dashboard.ts:
 * playwright-core driving Debian's chromium headless (`apt-get install
 * chromium`; CHROMIUM overrides the path), logged in with a bearer token.
 */
import { chromium, type Browser, type Page } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: the tests run as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
}

export interface LoginOptions {
  /** Typed into the login form's namespace field. */
  namespace?: string;
  /** Runs on the new page before it loads (e.g. page.route to hold a response back, as a loaded server would). */
  beforeLoad?(page: Page): Promise<unknown>;
}

/** A fresh page (own sessionStorage) logged in to `dashboardURL` with `token`, map shown. */
export async function loggedInPage(browser: Browser, dashboardURL: string, token: string, options: LoginOptions = {}): Promise<Page> {
  // The cluster's CA is its own (k8ts's PKI): the browser is told to accept it, as a user would.
  const ctx = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 640 } });
  const page = await ctx.newPage();
  await options.beforeLoad?.(page);
  await page.goto(dashboardURL);
  await page.fill('#token', token);
  if (options.namespace) await page.fill('#namespace', options.namespace);
  await page.click('button[type=submit]');
  await page.waitForSelector('.map');
  return page;
}
