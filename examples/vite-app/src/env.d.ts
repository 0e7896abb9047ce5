/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Call this API instead of starting the in-browser mock, e.g. `http://127.0.0.1:4010/v1`. */
  readonly VITE_API_BASE_URL?: string
  readonly VITE_PUBLISHABLE_KEY?: string
  readonly VITE_SECRET_KEY?: string
  /** The standalone mock's origin (`http://127.0.0.1:4010`): the dev server proxies `/v1` and `/_mock` to it. */
  readonly VITE_MOCK_PROXY?: string
}

interface ImportMeta {
  readonly env: ImportMetaEnv
}
