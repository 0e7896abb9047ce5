/** Types of `voice-api-kit/mocks/dashboard` (the dashboard module is plain JavaScript, checked with JSDoc). */
export interface DashboardOptions {
  /** Where the control plane answers (default `/_mock`, same origin). */
  controlUrl?: string
  /** A link to the API reference, if any. */
  docsUrl?: string
  /** A link back to the app, if any. */
  backLink?: { href: string; label: string }
}

/** The mounted dashboard. */
export interface MountedDashboard {
  /** Resolves once the first load finished. */
  ready: Promise<void>
  /** Reloads everything from the control plane. */
  refresh(): Promise<void>
}

/** Renders the dashboard ("Settings, API Keys") into `root`, driven by the control plane at `controlUrl`. */
export function mountDashboard(root: HTMLElement, options?: DashboardOptions): MountedDashboard
