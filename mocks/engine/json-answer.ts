import type { EngineResponse } from './types.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): EngineResponse {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body }
}
