import type { EngineResponse } from '../types.ts'

/** A control-plane operation: the routed, validated request in, the answer out (or an `ApiError` thrown). */
export type ControlHandler = (input: {
  params: Record<string, string>
  query: Record<string, unknown>
  body: unknown
  /** The API's public base URL (ending in `/v1`) as the request reached it. */
  baseUrl?: string
}) => EngineResponse

/** Control-plane handlers by operationId (`openapi/mock-control.yaml`). */
export type ControlHandlers = Record<string, ControlHandler>
