import { existsSync, mkdirSync } from 'node:fs'
import { type Browser, chromium, type Page } from 'playwright-core'

/** Debian's chromium (`apt-get install chromium`), or the one `CHROMIUM_PATH` names. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/** `.ci/run` sets `REQUIRE_BROWSER=1`: then a missing chromium fails the tests instead of skipping them. */
export const BROWSER_REQUIRED = process.env.REQUIRE_BROWSER === '1'
const missing = !existsSync(CHROMIUM_PATH)

/** True when the real-browser tests cannot run here and are not required. */
export const SKIP_BROWSER_TESTS = missing && !BROWSER_REQUIRED

/** The title suffix (and console note) that says why the browser tests were skipped. */
export const SKIP_NOTE = SKIP_BROWSER_TESTS
  ? ` (skipped: no chromium at ${CHROMIUM_PATH}; apt-get install chromium, or set CHROMIUM_PATH; REQUIRE_BROWSER=1 makes this a failure)`
  : ''
if (SKIP_BROWSER_TESTS) console.warn(`Browser tests${SKIP_NOTE}`)

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

/** Launches the system chromium through playwright-core. */
export async function launchChromium(): Promise<Browser> {
  if (missing)
    throw new Error(
      `REQUIRE_BROWSER=1 but there is no chromium at ${CHROMIUM_PATH}: run apt-get install -y chromium (or set CHROMIUM_PATH).`,
    )
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS })
}

const SCREENSHOTS = 'test-results/screenshots'

/** Saves a full-page screenshot for review under `test-results/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const path = `${SCREENSHOTS}/${name}.png`
  await page.screenshot({ path, fullPage, animations: 'disabled' })
  return path
}

/** Collects uncaught page errors, so that a test can assert there were none. */
export function pageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}
