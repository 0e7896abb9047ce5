// @ts-check
/**
 * A client for the mock's control plane (openapi/mock-control.yaml). Errors are values, never exceptions:
 * every call resolves to `{ data }` or `{ error }`.
 *
 * @typedef {{ status: number, code: string, message: string, errors: { param: string, code: string, message: string }[] }} ControlError
 * @typedef {{ data: any, error?: undefined } | { data?: undefined, error: ControlError }} ControlResult
 */

/**
 * @param {string} [baseUrl] where the control plane answers, `/_mock` on the same origin by default
 */
export function createControlApi(baseUrl = '/_mock') {
  const root = baseUrl.replace(/\/+$/, '')
  /** @type {string | undefined} */
  let adminToken

  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @param {{ raw?: boolean }} [options] `raw`: `body` is JSON text already, and the answer is kept as text
   * @returns {Promise<ControlResult>}
   */
  async function call(method, path, body, options = {}) {
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (adminToken) headers.authorization = `Bearer ${adminToken}`
    let response
    try {
      response = await fetch(`${root}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : options.raw ? String(body) : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'same-origin',
      })
    } catch (error) {
      return {
        error: {
          status: 0,
          code: 'network_error',
          message: `The mock did not answer (${error instanceof Error ? error.message : String(error)}). Is it still running?`,
          errors: [],
        },
      }
    }
    if (response.ok && options.raw) return { data: await response.text() }
    /** @type {any} */
    const payload = await response.json().catch(() => null)
    if (response.ok) return { data: payload }
    const error = payload?.error ?? {}
    return {
      error: {
        status: response.status,
        code: typeof error.code === 'string' ? error.code : 'unknown_error',
        message: typeof error.message === 'string' ? error.message : `The mock answered ${response.status}.`,
        errors: Array.isArray(error.errors) ? error.errors : [],
      },
    }
  }

  const id = encodeURIComponent
  return {
    /** @param {string | undefined} token the `--admin-token` of the mock, kept in memory only */
    setAdminToken(token) {
      adminToken = token || undefined
    },
    /** Any control-plane operation, for panels that own theirs. @param {string} method @param {string} path @param {unknown} [body] */
    request: (method, path, body) => call(method, path, body),
    listAccounts: () => call('GET', '/accounts'),
    /** @param {string} accountId */
    getAccount: (accountId) => call('GET', `/accounts/${id(accountId)}`),
    /** @param {string} accountId @param {{ plan?: string, limits?: { hourly: number, burst: number } | null }} patch */
    updateAccount: (accountId, patch) => call('PATCH', `/accounts/${id(accountId)}`, patch),
    /** @param {string} accountId */
    rateLimit: (accountId) => call('GET', `/accounts/${id(accountId)}/rate-limit`),
    /** @param {string} accountId */
    listKeys: (accountId) => call('GET', `/accounts/${id(accountId)}/keys`),
    /** @param {string} accountId @param {object} input */
    createKey: (accountId, input) => call('POST', `/accounts/${id(accountId)}/keys`, input),
    /** @param {string} keyId */
    revokeKey: (keyId) => call('POST', `/keys/${id(keyId)}/revoke`),
    getClock: () => call('GET', '/clock'),
    /** @param {number} seconds */
    advanceClock: (seconds) => call('POST', '/clock/advance', { seconds }),
    /** @param {{ account_id?: string, key_id?: string, status?: string, limit?: number }} query */
    journal(query) {
      const params = new URLSearchParams()
      for (const [name, value] of Object.entries(query))
        if (value !== undefined && value !== '') params.set(name, String(value))
      const search = params.toString()
      return call('GET', `/journal${search ? `?${search}` : ''}`)
    },
    reset: () => call('POST', '/reset'),
    /**
     * Every active scenario, newest first, a page of 100 at a time.
     * @returns {Promise<ControlResult>}
     */
    async listScenarios() {
      /** @type {any[]} */
      const all = []
      let after = ''
      for (;;) {
        const result = await call('GET', `/scenarios?limit=100${after ? `&starting_after=${id(after)}` : ''}`)
        if (result.error) return result
        all.push(...result.data.data)
        if (!result.data.has_more || result.data.data.length === 0)
          return { data: { ...result.data, data: all, has_more: false } }
        after = result.data.data[result.data.data.length - 1].id
      }
    },
    /** @param {object} input */
    createScenario: (input) => call('POST', '/scenarios', input),
    /** @param {string} scenarioId */
    deleteScenario: (scenarioId) => call('DELETE', `/scenarios/${id(scenarioId)}`),
    clearScenarios: () => call('DELETE', '/scenarios'),
    listOperations: () => call('GET', '/operations'),
    /** The capsule of this moment, as its JSON text (`data`). */
    capsuleText: () => call('GET', '/capsule', undefined, { raw: true }),
    /** Opens a capsule given as its JSON text, unchanged. @param {string} text */
    openCapsule: (text) => call('POST', '/capsule', text, { raw: true }),
  }
}

/** @typedef {ReturnType<typeof createControlApi>} ControlApi */
