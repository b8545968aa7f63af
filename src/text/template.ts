import { renderTooSlow } from './recipient-text';
import { TemplateProblem } from './twig-bounds';
import type { SandboxedTemplate } from './twig-sandbox';
import { TimeLimitExceeded } from './time-limit';

export interface TemplateVariables {
  /** The number's or the contact's data; null when there is none. */
  contact: Record<string, unknown> | null;
  /** The number (`number`), and for a contact its `id`, `name`, `created_at`, `updated_at`. */
  contact_metas: Record<string, unknown>;
}

export type RenderResult = { ok: true; text: string } | { ok: false; reason: string };

/** A message's text compiled once, rendered for each of its recipients. */
export interface CompiledTemplate {
  /** Why the text does not compile (every render then fails saying so), or null. */
  error: string | null;
  render(variables: TemplateVariables): RenderResult;
}

/**
 * Longer texts are not compiled (twig.js compiles in quadratic time): the API takes texts of 1000
 * characters, which are at most 2000 UTF-16 code units.
 */
export const MAX_TEMPLATE_LENGTH = 4_000;
/** A render that takes longer is stopped, unless the caller gives another limit. */
export const RENDER_TIME_LIMIT_MS = 100;

export interface TemplateOptions {
  /** How long one render may take, in milliseconds. */
  timeLimitMs?: number;
}

/**
 * Compiles a message text as a Twig template, as RaspiSMS renders it when the user's setting
 * `templating` is on: `{{ contact.firstname }}`, `{% if contact.gender == 'female' %}`, filters
 * such as `upper`, `lower` and `default`; autoescape off, and an undefined variable prints as
 * nothing. A text that does not compile still gives a template, whose every render fails saying
 * why.
 *
 * The template sees only copies of `contact` and `contact_metas`, and runs in a sandbox (see
 * twig-sandbox.ts): allowed tags, filters and functions only, no method calls, no prototypes, no
 * file system, and a bounded render.
 */
export function compileTemplate(source: string, options: TemplateOptions = {}): CompiledTemplate {
  const timeLimitMs = options.timeLimitMs ?? RENDER_TIME_LIMIT_MS;
  if (source.length > MAX_TEMPLATE_LENGTH) {
    return failing(
      `The template does not compile: it is longer than ${MAX_TEMPLATE_LENGTH} characters.`,
    );
  }
  let template: SandboxedTemplate;
  try {
    template = sandbox().compileSandboxed(source);
  } catch (error) {
    return failing(`The template does not compile: ${compileFailure(error, source)}.`);
  }
  return {
    error: null,
    render(variables) {
      let context: Record<string, unknown>;
      try {
        context = {
          contact: jsonCopy(variables.contact),
          contact_metas: jsonCopy(variables.contact_metas),
        };
      } catch (error) {
        return {
          ok: false,
          reason: `The recipient's data cannot be given to the template: ${detail(error)}.`,
        };
      }
      try {
        return { ok: true, text: template.render(context, timeLimitMs) };
      } catch (error) {
        return { ok: false, reason: renderFailure(error, timeLimitMs) };
      }
    },
  };
}

/**
 * twig.js and the sandbox around it, loaded at the first template rather than with this file:
 * most processes never compile one, and twig.js with the PHP functions it brings is the largest
 * thing they would otherwise hold.
 */
function sandbox(): typeof import('./twig-sandbox') {
  return require('./twig-sandbox') as typeof import('./twig-sandbox');
}

function failing(reason: string): CompiledTemplate {
  return { error: reason, render: () => ({ ok: false, reason }) };
}

/**
 * twig.js's reason, told where a person looks for it: the offset of an unclosed bracket as a
 * line and column; its other offsets, which count from the start of the expression and not of
 * the text, left out (the fragment it quotes says where); its internal type names as the tags
 * and parts written; and the crash of its compiler on a closing tag or bracket without its
 * opening one as that.
 */
function compileFailure(error: unknown, source: string): string {
  if (error instanceof TypeError) {
    return 'a closing tag or bracket (such as {% endif %} or a parenthesis) has no opening one';
  }
  return detail(error)
    .replace(/opened near template position (\d+)/, (_, offset: string) => {
      // twig.js counts from the end of the opening bracket, which may end in `-` or `~`.
      const before = source.slice(0, Number(offset));
      const opening = before.search(/\{[{%#][-~]?$/);
      return `opened at ${lineAndColumn(source, opening < 0 ? before.length : opening)}`;
    })
    .replace(/ at template(?: position ?|:)\d+/g, '')
    .replace(/Unable to find an end tag for Twig\.logic\.type\.(\w+), expecting one of .*$/, endTag)
    .replace(/an? Twig\.expression\.type\.([\w.]+)|Twig\.expression\.type\.([\w.]+)/g, (_, a, b) =>
      expressionPart(String(a ?? b)),
    );
}

function expressionPart(type: string): string {
  const [kind] = type.split('.');
  return kind === 'operator' ? 'an operator' : `a ${kind.replace(/^_/, '')}`;
}

function lineAndColumn(source: string, offset: number): string {
  const before = source.slice(0, offset).split('\n');
  return `line ${before.length}, column ${[...before[before.length - 1]].length + 1}`;
}

function endTag(_: string, type: string): string {
  const tag = type === 'setcapture' ? 'set' : type;
  return `the tag {% ${tag} %} is never closed: it needs its {% end${tag} %}`;
}

/**
 * A plain copy: objects with only data, so that nothing the caller passed (a class instance, a
 * function, a shared object) is reachable, and nothing the template does changes the original.
 */
function jsonCopy(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

function renderFailure(error: unknown, timeLimitMs: number): string {
  if (error instanceof TimeLimitExceeded) {
    return renderTooSlow(timeLimitMs);
  }
  if (error instanceof TemplateProblem && error.message.startsWith('The template')) {
    return `${error.message}.`;
  }
  return `The template cannot be rendered: ${detail(error)}.`;
}

/** The message of an error, of twig.js's own errors (which are not Error objects) included. */
function detail(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return text.replace(/[.\s]+$/, '');
}
