/** What an operation handler returns on success (and what an idempotent replay gives back). */
export interface OperationResult {
  status: number
  body: unknown
  headers?: Record<string, string>
}
