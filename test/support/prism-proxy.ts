import { type PrismProcess, startPrism } from '../../scripts/lib/prism-process.ts'

/** Starts `prism proxy openapi/v1.yaml <upstream>` on a free loopback port; resolves once it listens. */
export function startPrismProxy(upstream: string): Promise<PrismProcess> {
  return startPrism(['proxy', 'openapi/v1.yaml', upstream])
}
