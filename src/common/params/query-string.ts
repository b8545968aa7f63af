import { parse } from 'qs';

/**
 * Parses a query string or urlencoded body with PHP's bracket syntax (`numbers[0][data]=…`,
 * `contacts[]=1`). The body size limit bounds the work; qs's own small limits would silently
 * turn `numbers[25]` into an object key or drop parameters past the thousandth.
 */
export function parseQueryString(source: string): Record<string, unknown> {
  return parse(source, {
    depth: 5,
    arrayLimit: 100_000,
    parameterLimit: 1_000_000,
    allowPrototypes: false,
    plainObjects: true,
  });
}
