import { httpRequest } from './http-request.ts'

/** A response as the bare server replays it: status, header pairs, body (base64). */
export interface CapturedResponse {
  status: number
  headers: [string, string][]
  body: string
}

/** Headers Node's http server writes itself on every response; the replay must not send them twice. */
const SET_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/** Sends one request and keeps the response's bytes for the bare server. */
export async function captureResponse(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<CapturedResponse> {
  const result = await httpRequest(url, init)
  const headers: [string, string][] = []
  for (let i = 0; i < result.rawHeaders.length; i += 2) {
    const name = result.rawHeaders[i] as string
    if (!SET_BY_NODE.has(name.toLowerCase())) headers.push([name, result.rawHeaders[i + 1] as string])
  }
  return { status: result.status, headers, body: result.body.toString('base64') }
}
