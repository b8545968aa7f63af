/**
 * The lexer and parser of the `expression-language` package (2.x, untyped), which conditions use
 * to read Symfony ExpressionLanguage syntax. Its evaluator is not used (see condition.ts).
 */
declare module 'expression-language/lib/Lexer' {
  export interface TokenStream {
    readonly expression: string;
  }

  export function tokenize(expression: string): TokenStream;
}

declare module 'expression-language/lib/Parser' {
  import type { TokenStream } from 'expression-language/lib/Lexer';

  /** A node of the syntax tree: `name` is its class (`BinaryNode`, `GetAttrNode`…). */
  export interface ExpressionNode {
    readonly name: string;
    readonly nodes: Readonly<Record<string, ExpressionNode>>;
    readonly attributes: Readonly<Record<string, unknown>>;
    /** ArrayNode: `Array` for a list, `Object` for a hash. */
    readonly type?: string;
    /** ConstantNode naming an attribute after `?.`. */
    readonly isNullSafe?: boolean;
  }

  export default class Parser {
    constructor(functions: Readonly<Record<string, unknown>>);
    parse(tokens: TokenStream, names: string[], flags?: number): ExpressionNode;
  }
}
