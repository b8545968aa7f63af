import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { difference, readExamples, readPattern } from './doc-examples';

const fits = (shown: string, actual: unknown) => difference(readPattern(shown), actual);

const ENVELOPE = { error: 0, message: null, response: 1, next: null, prev: null };

describe('answers shown in the docs, as patterns', () => {
  it('takes an answer that is the same JSON, whatever its layout', () => {
    expect(
      fits('{ "error": 0, "message": null, "response": 1, "next": null, "prev": null }', ENVELOPE),
    ).toBeNull();
  });

  it('refuses a changed message text, another error code and a missing member', () => {
    const shown = '{"error":2,"message":"id : 3 is not the id of one of your sent messages.",…}';
    const refusal = { error: 2, message: 'id : 3 is not the id of one of your sent messages.' };
    expect(fits(shown, refusal)).toBeNull();
    expect(fits(shown, { ...refusal, message: 'id : 3 is unknown.' })).toMatch(/^\$\.message: /);
    expect(fits(shown, { ...refusal, error: 4 })).toBe('$.error: expected 2, got 4');
    expect(fits(shown, { error: 2 })).toBe('$: member "message" is missing');
  });

  it('refuses members not shown unless … stands for them, and members out of order', () => {
    expect(fits('{"error":0,"response":1}', ENVELOPE)).toBe(
      '$: members not shown: message, next, prev',
    );
    expect(fits('{"error":0,"response":1,…}', ENVELOPE)).toBeNull();
    expect(fits('{"response":1,"error":0,…}', ENVELOPE)).toMatch(/order/);
  });

  it('reads … as any value, the rest of a string, or any elements', () => {
    expect(fits('{"response":…,…}', ENVELOPE)).toBeNull();
    expect(
      fits('"Cannot create a new entry. …password…"', 'Cannot create a new entry. x password y'),
    ).toBeNull();
    expect(fits('"Cannot create…"', 'Cannot update')).not.toBeNull();
    expect(fits('[1,…]', [1, 2, 3])).toBeNull();
    expect(fits('[1,…]', [2, 1])).toBe('$[0]: expected 1, got 2');
    expect(fits('[…,3]', [1, 2, 3])).toBeNull();
    expect(fits('[1]', [1, 2])).toMatch(/do not fit/);
    expect(fits('[]', [])).toBeNull();
  });

  it('matches datetimes, keys, secrets and uids by their shape only', () => {
    expect(fits('"2024-05-01 09:30:00"', '2026-11-27 18:31:40')).toBeNull();
    expect(fits('"2024-05-01 09:30:00"', '2026-11-27')).not.toBeNull();
    expect(
      fits('"5bd4868bc412def072abd79e8c266ad6"', '57604107ca907a443719f9dd95d667d7'),
    ).toBeNull();
    expect(
      fits('"5bd4868bc412def072abd79e8c266ad6"', '57604107ca907a443719f9dd95d667'),
    ).not.toBeNull();
    expect(
      fits('"SM0123456789abcdef0123456789abcdef"', 'SMffffffffffffffffffffffffffffffff'),
    ).toBeNull();
    expect(
      fits('"SM0123456789abcdef0123456789abcdef"', 'MMffffffffffffffffffffffffffffffff'),
    ).not.toBeNull();
    expect(fits('"whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ="', 'whsec_b3RoZXItb3RoZXI=')).toBeNull();
    expect(fits('"spring-sale"', 'summer-sale')).not.toBeNull();
    expect(fits('"+33612345678"', '+33612345679')).not.toBeNull();
  });

  it('says where an answer shown is not readable', () => {
    expect(() => readPattern('{"error":0 "message":null}')).toThrow(/"," or "}" expected/);
  });
});

describe('examples read from a Markdown file', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-doc-examples-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const read = (markdown: string) => {
    writeFileSync(join(folder, 'doc.md'), markdown);
    return readExamples(join(folder, 'doc.md'), 'doc.md').map(({ line, command, answer }) => ({
      line,
      command,
      answer: answer && { ...answer },
    }));
  };

  it('takes each command with its answer, from a comment under it or the JSON block after', () => {
    const markdown = [
      '# Title',
      '```sh',
      'API=http://localhost:3000',
      '# Creates one.',
      'curl -s "$API/api/contact/" \\',
      '  -d name=Alice',
      '# {"error":0,',
      '#   "response":1}',
      '# Then another, with the answer of the block.',
      'curl -s "$API/api/list/contact/"',
      '```',
      '',
      '```json',
      '{ "error": 0 }',
      '```',
    ].join('\n');
    expect(read(markdown)).toEqual([
      {
        line: 5,
        command: 'curl -s "$API/api/contact/" \\\n  -d name=Alice',
        answer: { text: '{"error":0,\n  "response":1}', line: 7 },
      },
      {
        line: 10,
        command: 'curl -s "$API/api/list/contact/"',
        answer: { text: '{ "error": 0 }', line: 14 },
      },
    ]);
  });

  it('leaves out blocks that call neither curl nor the CLI, and blocks marked to skip', () => {
    const markdown = [
      '```sh',
      'npm ci && npm start',
      '```',
      '',
      '<!-- example: skip -->',
      '',
      '```sh',
      'curl -u "$USERNAME:$PASSWORD" "$API/webhooks"',
      '```',
      '',
      '```bash',
      'npx smsgw user list',
      '```',
    ].join('\n');
    expect(read(markdown)).toEqual([{ line: 12, command: 'npx smsgw user list', answer: null }]);
  });
});
