/** A contact's template data as the API lists it (a JSON text), as `key: value` pairs. */
export function dataSummary(data: string | null): string {
  const object = parseData(data);
  return Object.entries(object)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(', ');
}

function parseData(data: string | null): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data ?? '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The data in the form's text area: indented JSON, empty when there is none. */
export function dataText(data: string | null): string {
  const object = parseData(data);
  return Object.keys(object).length > 0 ? JSON.stringify(object, null, 2) : '';
}

/**
 * The form's text read as the JSON object post_contact takes; an empty text is no data. Anything
 * else is for the API to judge (an array, a nested object), so only text that is not JSON at all
 * is refused here, saying what to write.
 */
export function readDataText(text: string): Record<string, string | number | boolean> | Error {
  if (!text.trim()) {
    return {};
  }
  try {
    return JSON.parse(text) as Record<string, string | number | boolean>;
  } catch {
    return new Error('data is not JSON: write an object such as {"firstname": "Ada"}.');
  }
}
