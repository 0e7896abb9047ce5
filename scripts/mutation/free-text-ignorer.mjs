// @ts-check
/**
 * A StrykerJS ignorer (https://stryker-mutator.io/docs/stryker-js/disable-mutants/#using-an-ignore-plugin):
 * mutants in what the contract leaves free are not mutants of behaviour, so no fair suite can kill them
 * (docs/decisions/015-mutation-scope.md):
 * - the text of a message: an error's `message`, a field error's `message`, the message arguments of the
 *   `errors.*` factories and of `new ApiError(...)`, and functions whose doc comment says `@messageText`
 *   (they only word a message);
 * - the envelope's optional fields (docs/decisions/011-allowed-forms.md): `error.param` (the `param` of an
 *   error's fields, the param arguments of the factories) and `error.request_id`.
 * It replaces the inline marks that said the same thing at every message.
 */
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin'

/** Arguments of `errors.<factory>(...)` that reach only the message (the text) or the optional `param`. */
const FREE_ARGUMENTS = {
  invalidJson: [0],
  invalidParameter: [0, 1],
  invalidCursor: [0, 1],
  parameterConflict: [0, 1],
  unauthenticated: [0],
  keyRestricted: [0],
  resourceNotFound: [0, 1, 2],
  routeNotFound: [0, 1],
  methodNotAllowed: [0],
  conflict: [1, 2],
  payloadTooLarge: [0],
  unsupportedMediaType: [0],
  internal: [0],
}

/** The name of what a node is the key of (`message: ...`, `param: ...`), if it is an object property. */
function propertyName(node) {
  if (node?.type !== 'ObjectProperty' || node.computed) return undefined
  if (node.key.type === 'Identifier') return node.key.name
  if (node.key.type === 'StringLiteral') return node.key.value
  return undefined
}

/** Whether a path is the argument `index` of a call or `new` whose callee `matches`. */
function argumentOf(path, matches) {
  const parent = path.parentPath
  if (!parent || path.listKey !== 'arguments') return undefined
  if (!parent.isCallExpression() && !parent.isNewExpression()) return undefined
  return matches(parent.node.callee) ? Number(path.key) : undefined
}

const isApiError = (callee) => callee.type === 'Identifier' && callee.name === 'ApiError'
const factoryName = (callee) =>
  callee.type === 'MemberExpression' &&
  callee.object.type === 'Identifier' &&
  callee.object.name === 'errors' &&
  callee.property.type === 'Identifier'
    ? callee.property.name
    : undefined

/** An object literal whose only properties are `param` (`{ param }`), or a choice between such and `{}`. */
function onlyParam(node) {
  if (!node) return false
  if (node.type === 'ObjectExpression') return node.properties.every((p) => propertyName(p) === 'param')
  if (node.type === 'ConditionalExpression') return onlyParam(node.consequent) && onlyParam(node.alternate)
  return false
}

/** Whether the node's leading comments carry the `@messageText` tag. */
function taggedMessageText(node) {
  return (node?.leadingComments ?? []).some((comment) => comment.value.includes('@messageText'))
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'free-text', {
    /** @param {import('@babel/core').NodePath} path */
    shouldIgnore(path) {
      const node = path.node
      const name = propertyName(node)
      if (name === 'message') return 'Free text: a message (the spec leaves its wording free).'
      const apiErrorArgument = argumentOf(path, isApiError)
      if (apiErrorArgument === 3) return "Free text: an ApiError's message."
      let factory
      const factoryArgument = argumentOf(path, (callee) => {
        factory = factoryName(callee)
        return factory !== undefined
      })
      if (factoryArgument !== undefined && factory && FREE_ARGUMENTS[factory]?.includes(factoryArgument))
        return `Free text or an optional field: argument ${factoryArgument} of errors.${factory} reaches only the message or error.param (docs/decisions/011-allowed-forms.md).`
      if (apiErrorArgument === 4 && onlyParam(node))
        return 'An optional field: error.param (docs/decisions/011-allowed-forms.md).'
      if (name === 'param' && path.findParent((p) => argumentOf(p, isApiError) === 4))
        return 'An optional field: error.param (docs/decisions/011-allowed-forms.md).'
      if (name === 'request_id')
        return 'An optional field: error.request_id (docs/decisions/011-allowed-forms.md).'
      if (path.isSpreadElement() && path.get('argument').isConditionalExpression()) {
        const text = path.toString()
        if (/\brequest_id\b/.test(text) || /\{\s*param\s*\}/.test(text))
          return 'An optional field of the envelope (docs/decisions/011-allowed-forms.md).'
      }
      if (
        (path.isFunctionDeclaration() || path.isVariableDeclaration() || path.isExportNamedDeclaration()) &&
        taggedMessageText(node)
      )
        return 'Free text: this function only words a message (@messageText).'
      return undefined
    },
  }),
]
