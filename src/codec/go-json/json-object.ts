/** A JSON object as `JSON.parse` gives it: neither null nor a list. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sets `key` as an own property, defined rather than assigned: a key `__proto__` is a key like any other. */
export function setOwnKey(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
