import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest'
import type { RunningMock } from '../../../cli/mock/mock-command.ts'
import { launchChromium, pageErrors } from './chromium.ts'
import { startExampleApp, startStandaloneMock } from './servers.ts'

const VIEWPORT = { width: 1280, height: 900 }

/** The example app's dev server. */
export interface DevServer {
  origin: string
  close(): Promise<void>
}

/** What a test of the example app in Chromium works with; set by the hooks the functions below register. */
export interface ExamplePages {
  browser: Browser
  app: DevServer
  context: BrowserContext
  page: Page
  /** Uncaught errors of `page`. */
  errors: string[]
}

/**
 * Registers the hooks of a file that tests the example app on its in-browser mock (MSW's worker): one Chromium
 * and one Vite dev server per file; per test a fresh context (its own service-worker registration and
 * sessionStorage) and page, with no uncaught page error at its end. `ready` opens the app and waits until it
 * has started before each test.
 */
export function examplePagesPerTest(options: { timeoutMs?: number; ready?: boolean } = {}): ExamplePages {
  const pages = {} as ExamplePages
  beforeAll(async () => {
    ;[pages.browser, pages.app] = await Promise.all([launchChromium(), startExampleApp()])
  })
  afterAll(async () => {
    await pages.browser?.close()
    await pages.app?.close()
  })
  beforeEach(async () => {
    pages.context = await pages.browser.newContext({ viewport: VIEWPORT })
    pages.context.setDefaultTimeout(options.timeoutMs ?? 15_000)
    pages.page = await pages.context.newPage()
    pages.errors = pageErrors(pages.page)
    if (options.ready) {
      await pages.page.goto(pages.app.origin)
      await pages.page.locator('body[data-ready="true"]').waitFor()
    }
  })
  afterEach(async () => {
    expect(pages.errors).toEqual([])
    await pages.context.close()
  })
  return pages
}

/**
 * Registers the hooks of a file that tests the example app against the standalone mock: the mock, Chromium,
 * and the dev server started with the `VITE_*` variables `env` gives for that mock (Vite reads them from the
 * environment when it starts; each test file runs in its own worker), one page for the whole file.
 */
export function examplePageOnStandaloneMock(
  env: (mock: RunningMock & { origin: string }) => Record<string, string>,
): ExamplePages & { mock: RunningMock & { origin: string } } {
  const pages = {} as ExamplePages & { mock: RunningMock & { origin: string } }
  const saved = { ...process.env }
  beforeAll(async () => {
    ;[pages.browser, pages.mock] = await Promise.all([launchChromium(), startStandaloneMock()])
    Object.assign(process.env, env(pages.mock), {
      VITE_PUBLISHABLE_KEY: pages.mock.platform.demo.publishableKey,
      VITE_SECRET_KEY: pages.mock.platform.demo.secretKey,
    })
    pages.app = await startExampleApp()
    pages.context = await pages.browser.newContext({ viewport: VIEWPORT })
    pages.context.setDefaultTimeout(15_000)
    pages.page = await pages.context.newPage()
    pages.errors = pageErrors(pages.page)
  })
  afterAll(async () => {
    process.env = saved
    await pages.browser?.close()
    await pages.app?.close()
    await pages.mock?.close()
  })
  return pages
}
