/**
 * The functions of the `locutus` package (2.x, untyped, one CommonJS function per module) that
 * smsgw calls: strtotime for PHP's relative dates, and sprintf, which twig.js's format filter
 * runs and the tests pin.
 */
declare module 'locutus/php/datetime/strtotime' {
  function strtotime(text: string, now?: number): number | false;
  export = strtotime;
}

declare module 'locutus/php/strings/sprintf' {
  function sprintf(format: string, ...args: unknown[]): string;
  export = sprintf;
}
