import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The repository explains itself: no file may send its reader to a document that a clone does
 * not contain — the working notes the project was specified from, their section numbers, or
 * their file names. What the code relies on from them is restated under `docs/`, and a
 * citation names the `docs/` file and section instead.
 */
const ROOT = join(__dirname, '..', '..');

/** This file names what it forbids, so it is the one file not read. */
const SELF = 'test/repository/self-contained.spec.ts';

const FORBIDDEN: readonly { why: string; pattern: RegExp }[] = [
  { why: 'a path to the working notes', pattern: /(?:\.\.|\/work)\/shared\b/ },
  { why: 'the decisions file', pattern: /\bDECISIONS\b/ },
  { why: 'the style guide of the working notes', pattern: /\bSTYLE\b/ },
  { why: 'a section of the reference report', pattern: /\breference (?:§|\d)/i },
  { why: 'a section of the specification', pattern: /\bspec(?:ification)? (?:§|part \d|\d)/i },
  {
    why: 'a file of the working notes',
    pattern: /\b(?:sms-api|management-api|events|peers|raspisms-behaviour|STYLE|DECISIONS)\.md\b/,
  },
];

/** Tracked files, and new files not yet added that git does not ignore. */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((path) => path !== '' && path !== SELF)
    .filter((path) => !/^(?:node_modules|dist)\//.test(path));
}

function citations(): string[] {
  const found: string[] = [];
  for (const path of repositoryFiles()) {
    let content: Buffer;
    try {
      content = readFileSync(join(ROOT, path));
    } catch {
      // Listed by git but deleted in the working tree: nothing left to cite anything.
      continue;
    }
    if (content.includes(0)) {
      continue;
    }
    content
      .toString('utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const { why, pattern } of FORBIDDEN) {
          if (pattern.test(line)) {
            found.push(`${path}:${index + 1} cites ${why}: ${line.trim()}`);
          }
        }
      });
  }
  return found;
}

describe('the repository is self-contained', () => {
  it('lists the files it checks, this one excepted', () => {
    const files = repositoryFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'package.json', 'src/main.ts']));
    expect(files).not.toContain(SELF);
  });

  it('cites no document that a clone does not contain', () => {
    expect(citations()).toEqual([]);
  });
});
