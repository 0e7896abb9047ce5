import type { EngineResponse } from '../types.ts'

/** A control-plane operation: the routed, validated request in, the answer out (or an `ApiError` thrown). */
export type ControlHandler = (input: {
  params: Record<string, string>
  query: Record<string, unknown>
  body: unknown
  /** The API's public base URL (ending in `/v1`) as the request reached it. */
  baseUrl?: string
  /** Whether the client is on a loopback address (or in-process): secrets leave the mock only then. */
  loopback: boolean
}) => EngineResponse

/** Control-plane handlers by operationId (`openapi/mock-control.yaml`). */
export type ControlHandlers = Record<string, ControlHandler>
