/**
 * A request method in upper case. The methods clients send are upper case already, and `toUpperCase` is not
 * free (a call into the runtime's case mapping): those come back as they are.
 */
export function upperCaseMethod(method: string): string {
  switch (method) {
    case 'GET':
    case 'POST':
    case 'PATCH':
    case 'DELETE':
    case 'PUT':
    case 'HEAD':
    case 'OPTIONS':
      return method
    default:
      return method.toUpperCase()
  }
}
