import { isJsonObject, type JsonObject, type JsonPath, objectEntries } from '../../scripts/lib/json.ts'
import { resolveLocalRef } from '../../scripts/lib/resolve-local-ref.ts'
import { HTTP_METHODS } from '../../scripts/lib/walk-openapi.ts'

/** One operation of the document's top-level `webhooks`: the event it stands for, and where it is. */
export interface WebhookOperation {
  /** The key under `webhooks` (the event type, e.g. `call.started`). */
  name: string
  operation: JsonObject
  /** The Path Item holding it (its `parameters` apply to the operation too). */
  item: JsonObject
  path: JsonPath
}

/** Every operation under `webhooks` (Path Items reached through a `$ref` are followed). */
export function webhookOperations(document: JsonObject): WebhookOperation[] {
  const found: WebhookOperation[] = []
  for (const [name, value] of objectEntries(document.webhooks)) {
    const item = resolveLocalRef(document, value, ['webhooks', name])
    if (!isJsonObject(item.value)) continue
    for (const method of HTTP_METHODS) {
      const operation = item.value[method]
      if (isJsonObject(operation))
        found.push({ name, operation, item: item.value, path: [...item.path, method] })
    }
  }
  return found
}
