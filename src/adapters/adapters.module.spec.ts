import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';
import { adapterConfig } from '../../test/support/adapters.factories';
import { Adapter } from './adapter';
import { ADAPTERS } from './adapters.module';

/*
 * Adding a provider is its folder and one line in ADAPTERS: nothing else in src/ may name a
 * provider. The names are taken from the registry itself (ids, RaspiSMS aliases and callback
 * ids, declared settings, class names), so the check follows every provider added.
 */

const SRC = join(__dirname, '..');
const ADAPTERS_DIR = __dirname;
const REGISTRY_FILE = join(ADAPTERS_DIR, 'adapters.module.ts');
/** A migration keeps the adapters of its day: it is history, not a list to maintain. */
const MIGRATIONS_DIR = join(SRC, 'database', 'migrations');

/** Every non-spec source file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return sourceFiles(path);
    }
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** What the checks read of a file: its strings, identifiers and imports, comments left out. */
interface Tokens {
  /** String literals, template pieces included, and the keys of object literals. */
  strings: string[];
  identifiers: Set<string>;
  /** The files and folders it imports, resolved. */
  imports: string[];
  /** The classes it exports that implement the adapter contract, directly or through a base. */
  adapterClasses: string[];
}

function tokensOf(path: string, text: string): Tokens {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest);
  const tokens: Tokens = { strings: [], identifiers: new Set(), imports: [], adapterClasses: [] };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)) {
      tokens.strings.push(node.name.text);
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      tokens.strings.push(node.text);
    } else if (ts.isIdentifier(node)) {
      tokens.identifiers.add(node.text);
    } else if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text.startsWith('.')
    ) {
      tokens.imports.push(resolve(dirname(path), node.moduleSpecifier.text));
    } else if (ts.isClassDeclaration(node) && node.name && isConcreteAdapter(node)) {
      tokens.adapterClasses.push(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return tokens;
}

/** An exported, non-abstract class that implements `Adapter` or extends an `…Adapter` base. */
function isConcreteAdapter(node: ts.ClassDeclaration): boolean {
  const modifiers = ts.getModifiers(node) ?? [];
  const has = (kind: ts.SyntaxKind) => modifiers.some((modifier) => modifier.kind === kind);
  const heritage = (node.heritageClauses ?? []).flatMap((clause) =>
    clause.types.map((type) => ({
      clause: clause.token,
      name: ts.isIdentifier(type.expression) ? type.expression.text : '',
    })),
  );
  return (
    has(ts.SyntaxKind.ExportKeyword) &&
    !has(ts.SyntaxKind.AbstractKeyword) &&
    heritage.some(
      ({ clause, name }) =>
        (clause === ts.SyntaxKind.ImplementsKeyword && name === 'Adapter') ||
        (clause === ts.SyntaxKind.ExtendsKeyword && name.endsWith('Adapter')),
    )
  );
}

function tokens(path: string): Tokens {
  return tokensOf(path, readFileSync(path, 'utf8'));
}

interface Provider {
  id: string;
  className: string;
  /** The folder under src/adapters/ that holds its class. */
  folder: string;
  alias: string | null;
  /** Names only its own code has a use for: its callback id and setting variables. */
  own: string[];
}

const files = sourceFiles(SRC);
const adapters: Adapter[] = ADAPTERS.map((Type) => new Type(adapterConfig()));

/** The provider folders: src/adapters/<folder>/. */
const providerFiles = files.filter((path) => dirname(dirname(path)) === ADAPTERS_DIR);

/** The folder under src/adapters/ whose file declares the adapter class `className`. */
function folderOf(className: string): string {
  const declaring = providerFiles.filter((path) => tokens(path).adapterClasses.includes(className));
  if (declaring.length !== 1) {
    throw new Error(`${className} must be declared in exactly one provider folder.`);
  }
  return dirname(declaring[0]);
}

const providers: Provider[] = adapters.map((adapter) => {
  const { id, alias, callbackId, settings } = adapter.descriptor;
  return {
    id,
    className: adapter.constructor.name,
    folder: folderOf(adapter.constructor.name),
    alias,
    own: [callbackId, ...(settings ?? []).map((setting) => setting.variable)].filter(
      (name): name is string => Boolean(name),
    ),
  };
});

/**
 * What a file at `path` holding `text` says of providers that are not its own, in words for a
 * failure; empty when it names none.
 */
function namingsIn(path: string, text: string): string[] {
  const { strings, identifiers, imports } = tokensOf(path, text);
  const strangers = providers.filter(
    (provider) => !path.startsWith(`${provider.folder}${sep}`) && path !== REGISTRY_FILE,
  );
  const found = strangers.flatMap((provider) => [
    ...provider.own
      .filter((name) => identifiers.has(name) || strings.some((text) => text.includes(name)))
      .map((name) => `${name} (${provider.id})`),
    ...(identifiers.has(provider.className) ? [provider.className] : []),
    ...imports
      .filter((target) => target.startsWith(`${provider.folder}${sep}`))
      .map((target) => `an import of ${relative(SRC, target)}`),
  ]);
  // One adapter named by its id or alias is an example (the `test` adapter in the API docs);
  // two or more are a list that a new provider would have to join.
  const named = strangers.filter(
    ({ id, alias }) =>
      strings.includes(id) || (alias !== null && strings.some((text) => text.includes(alias))),
  );
  return named.length > 1
    ? [...found, `a list of adapters: ${named.map(({ id }) => id).join(', ')}`]
    : found;
}

describe('adding a provider', () => {
  it('registers every adapter class of the provider folders, each with an id of its own', () => {
    const declared = providerFiles.flatMap((path) => tokens(path).adapterClasses);

    expect(ADAPTERS.map((Type) => Type.name).sort()).toEqual(declared.sort());
    expect(new Set(providers.map(({ id }) => id)).size).toBe(ADAPTERS.length);
  });

  it('names no provider in src/ outside its folder and the registry line', () => {
    const offenders = files
      .filter((path) => !path.startsWith(`${MIGRATIONS_DIR}${sep}`))
      .map((path) => ({
        file: relative(SRC, path),
        names: namingsIn(path, readFileSync(path, 'utf8')),
      }))
      .filter(({ names }) => names.length > 0);

    expect(offenders).toEqual([]);
  });

  it('sees a provider named outside its folder: a list of ids, a setting, an alias, an import', () => {
    const elsewhere = join(SRC, 'callbacks', 'elsewhere.ts');

    expect(
      namingsIn(
        elsewhere,
        "const UIDS = new Map([['kannel_adapter', 'kannel'], ['gammu_adapter', 'gammu']]);",
      ),
    ).toEqual([
      'kannel_adapter (kannel)',
      'gammu_adapter (gammu)',
      'a list of adapters: kannel, gammu',
    ]);
    expect(
      namingsIn(elsewhere, "const SECRETS = { twilio: ['auth_token'], kannel: ['password'] };"),
    ).toEqual(['a list of adapters: twilio, kannel']);
    expect(
      namingsIn(elsewhere, "class Env { TWILIO_API_URL = 'https://api.twilio.com'; }"),
    ).toEqual(['TWILIO_API_URL (twilio)']);
    expect(
      namingsIn(elsewhere, "switch (name) { case 'adapters\\\\KannelAdapter': case 'smpp': }"),
    ).toEqual(['a list of adapters: kannel, smpp']);
    expect(
      namingsIn(elsewhere, "import { SmppAdapter } from '../adapters/smpp/smpp.adapter';"),
    ).toEqual(['SmppAdapter', 'an import of adapters/smpp/smpp.adapter']);
  });

  it('lets a provider name itself in its folder, and the registry import every provider', () => {
    const twilio = providers.find(({ id }) => id === 'twilio')!;

    expect(
      namingsIn(join(twilio.folder, 'twilio.extra.ts'), 'const URL = process.env.TWILIO_API_URL;'),
    ).toEqual([]);
    expect(namingsIn(REGISTRY_FILE, readFileSync(REGISTRY_FILE, 'utf8'))).toEqual([]);
    expect(namingsIn(join(SRC, 'phones', 'example.ts'), "const example = 'test';")).toEqual([]);
  });
});
