/** The part of the `twig` package (twig.js 2.x, untyped) that templates use. */
declare module 'twig' {
  export interface TwigTemplate {
    tokens: unknown[];
    render(context: Record<string, unknown>): string;
  }

  export interface TwigParameters {
    data: string;
    rethrow?: boolean;
    autoescape?: boolean;
    strict_variables?: boolean;
    allowInlineIncludes?: boolean;
  }

  /** One twig.js instance, with its own tags, filters and functions. */
  export interface TwigInstance {
    twig(parameters: TwigParameters): TwigTemplate;
    /** Hands over the instance's internals, to change them. */
    extend(change: (internals: unknown) => void): void;
  }

  /** A new, independent instance: changing it leaves `require('twig')` untouched. */
  export function factory(): TwigInstance;

  /** The package's own default instance. */
  export function twig(parameters: TwigParameters): TwigTemplate;
}
