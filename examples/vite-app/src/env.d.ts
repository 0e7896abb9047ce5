/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Call this API instead of starting the in-browser mock, e.g. `http://127.0.0.1:4010/v1`. */
  readonly VITE_API_BASE_URL?: string
  readonly VITE_PUBLISHABLE_KEY?: string
  readonly VITE_SECRET_KEY?: string
}

interface ImportMeta {
  readonly env: ImportMetaEnv
}
