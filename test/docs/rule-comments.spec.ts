import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Citation, readCitations, readRules, sourceFiles } from './rule-comments';

/*
 * docs/api.md numbers each operation's rules in the order they are checked, and the code cites
 * them (`// Rule 3.`) so that a reader can hold one against the other. This spec fails when a
 * citation names a rule the operation's section does not have: a rule renumbered, added or
 * removed on one side only.
 */

const ROOT = join(__dirname, '..', '..');

/**
 * The operation of a citation that does not name one itself, and is not in a function whose doc
 * comment names one (`/** post_contact: … *\/`): by file, then function, method or constant
 * ('*' for the whole file). A new function citing rules without naming its operation goes here.
 */
const OPERATIONS: Record<string, Record<string, string>> = {
  'src/account/account.service.ts': { changeSettings: 'post_setting' },
  'src/conditional-groups/conditional-groups.params.ts': {
    parseCreateConditionalGroupParams: 'post_conditional_group',
    parsePreviewParams: 'get_conditional_group_preview',
  },
  'src/contacts/contacts.params.ts': {
    changes: 'post_update_contact',
    parseCreateContactParams: 'post_contact',
  },
  'src/conversations/conversations.params.ts': { parseConversationsParams: 'get_conversations' },
  'src/conversations/conversations.service.ts': {
    list: 'get_conversations',
    thread: 'get_conversation',
    markRead: 'post_conversation_read',
  },
  'src/entries/entries.params.ts': { '*': 'get_entries' },
  'src/entries/entries.service.ts': { '*': 'get_entries' },
  'src/groups/groups.params.ts': { contactIds: 'post_group', parseCreateGroupParams: 'post_group' },
  // Rules 3 and 4 of post_group and post_update_group are the same checks.
  'src/groups/groups.service.ts': { written: 'post_group' },
  'src/invalid-numbers/invalid-numbers.params.ts': { '*': 'get_invalid_numbers' },
  'src/invalid-numbers/invalid-numbers.service.ts': { '*': 'get_invalid_numbers' },
  'src/phone-groups/phone-groups.params.ts': { parseCreatePhoneGroupParams: 'post_phone_group' },
  'src/phones/phones.params.ts': {
    changes: 'post_update_phone',
    limits: 'post_update_phone',
    parseCreatePhoneParams: 'post_phone',
    parseForceStatusParams: 'post_change_phone_status',
  },
  'src/received/received.params.ts': { '*': 'post_update_received' },
  'src/scheduled/scheduled.params.ts': {
    '*': 'post_scheduled',
    parseSendNowParams: 'get_send_sms',
  },
  'src/scheduled/scheduled.service.ts': { create: 'post_scheduled' },
  'src/stats/dashboard.service.ts': { daily: 'get_daily_stats' },
  'src/stats/stats.params.ts': { '*': 'get_sms_status_stats' },
  'src/stats/stats.service.ts': { '*': 'get_sms_status_stats' },
  'src/stop-list/stop-list.params.ts': { '*': 'post_stop' },
  'src/stop-list/stop-list.service.ts': { '*': 'post_stop' },
  'src/usage/usage.params.ts': { '*': 'get_usage' },
  'src/usage/usage.service.ts': { '*': 'get_usage' },
  'src/webhooks/webhooks.params.ts': {
    parseCreateWebhookParams: 'post_webhook',
    parseFields: 'post_webhook',
  },
};

/** The error codes a rule can end in, as docs/api.md and the comments name them. */
const CODES =
  /\b(?:INVALID_CREDENTIALS|INVALID_PARAMETER|MISSING_PARAMETER|CANNOT_CREATE|SUSPENDED_USER|CANNOT_DELETE|CANNOT_UPLOAD_FILE|CANNOT_UPDATE)\b/g;

/** The operation a citation means: named by it, by its function's doc comment, or above. */
function operationOf(citation: Citation): string | undefined {
  if (citation.operation) {
    return citation.operation;
  }
  const places = [...citation.places].reverse();
  const table = OPERATIONS[citation.file] ?? {};
  return (
    places.find((place) => place.operation)?.operation ??
    places.map((place) => table[place.name]).find(Boolean) ??
    table['*']
  );
}

/**
 * `code` without its catch blocks: a write that fails on a name taken meanwhile tells it as the
 * earlier rule that checks names, which is not the rule its comment cites.
 */
function withoutCatches(code: string): string {
  let kept = code;
  for (let at = kept.search(/\bcatch\b[^{]*\{/); at >= 0; at = kept.search(/\bcatch\b[^{]*\{/)) {
    let depth = 0;
    let end = kept.indexOf('{', at);
    do {
      depth += kept[end] === '{' ? 1 : kept[end] === '}' ? -1 : 0;
      end++;
    } while (depth > 0 && end < kept.length);
    kept = kept.slice(0, at) + kept.slice(end);
  }
  return kept;
}

/**
 * The error codes `code` throws through ApiError: `ApiError.invalid(…)` and the helpers made on it
 * are INVALID_PARAMETER, `ApiError.missing(…)` MISSING_PARAMETER, the others name theirs.
 */
function thrownCodes(code: string): string[] {
  code = withoutCatches(code);
  const codes = new Set<string>();
  if (/ApiError\.invalid\(|\b(?:nameTaken|notYours)\(/.test(code)) {
    codes.add('INVALID_PARAMETER');
  }
  if (/ApiError\.missing\(/.test(code)) {
    codes.add('MISSING_PARAMETER');
  }
  for (const named of code.matchAll(/ApiError\.\w+\(\s*ErrorCode\.(\w+)/g)) {
    codes.add(named[1]);
  }
  return [...codes];
}

const where = (citation: Citation) => `${citation.file}:${citation.line}`;

describe('the `// Rule N` comments of src/ and the rules of docs/api.md', () => {
  const rules = readRules(readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8'));
  const citations = sourceFiles(join(ROOT, 'src')).flatMap((path) => readCitations(ROOT, path));

  it('reads the rules of docs/api.md and the citations of the code', () => {
    // A change to the layout of either that this reading misses would make every check pass.
    expect(rules.get('post_scheduled')?.size).toBeGreaterThanOrEqual(13);
    expect(rules.get('get_entries')?.has(7)).toBe(true);
    expect(citations.length).toBeGreaterThan(200);
    for (const [operation, numbered] of rules) {
      expect({ operation, numbers: [...numbered.keys()] }).toEqual({
        operation,
        numbers: Array.from({ length: numbered.size }, (_, index) => index + 1),
      });
    }
  });

  it('knows the operation of every citation', () => {
    const unknown = citations
      .filter((citation) => operationOf(citation) === undefined)
      .map((citation) => `${where(citation)} (${citation.places.map((p) => p.name).join('.')})`);
    expect(unknown).toEqual([]);
  });

  it('cites operations docs/api.md has, and rules their sections have', () => {
    const wrong = citations.flatMap((citation) => {
      const operation = operationOf(citation);
      if (operation === undefined) {
        return [];
      }
      const numbered = rules.get(operation);
      if (!numbered) {
        return [`${where(citation)}: docs/api.md has no section ${operation}`];
      }
      return citation.numbers
        .filter((n) => !numbered.has(n))
        .map((n) => `${where(citation)}: ${operation} has no rule ${n} (it has ${numbered.size})`);
    });
    expect(wrong).toEqual([]);
  });

  it('heads code throwing only the error codes of the rule it cites', () => {
    // `// Rule 8.` above a `throw ApiError.missing(…)`: rule 8 is the one that ends in
    // MISSING_PARAMETER, so rules swapped in the docs only are caught, words or none.
    const wrong = citations.flatMap((citation) => {
      const operation = operationOf(citation);
      const text = operation && rules.get(operation)?.get(citation.numbers[0]);
      if (!text || citation.numbers.length !== 1 || !/^\/\/ Rule \d+\.$/.test(citation.comment)) {
        return [];
      }
      return thrownCodes(citation.code)
        .filter((code) => !text.includes(code))
        .map(
          (code) => `${where(citation)}: ${operation} rule ${citation.numbers[0]} is not ${code}`,
        );
    });
    expect(wrong).toEqual([]);
  });

  it('names only error codes the rule it cites ends in', () => {
    // `// Rule 1: nothing deleted … is CANNOT_DELETE.`: the code a comment about one rule names
    // is the code docs/api.md gives that rule, so two rules swapped in the docs only are caught
    // too. A comment about several rules is left alone: its codes may be any of theirs.
    const perComment = new Map<string, number>();
    for (const citation of citations) {
      const key = `${citation.file}\n${citation.comment}`;
      perComment.set(key, (perComment.get(key) ?? 0) + 1);
    }
    const wrong = citations.flatMap((citation) => {
      const operation = operationOf(citation);
      const codes = citation.comment.match(CODES) ?? [];
      const alone = perComment.get(`${citation.file}\n${citation.comment}`) === 1;
      if (!operation || !alone || citation.numbers.length !== 1 || codes.length === 0) {
        return [];
      }
      const text = rules.get(operation)?.get(citation.numbers[0]) ?? '';
      return codes
        .filter((code) => !text.includes(code))
        .map(
          (code) => `${where(citation)}: ${operation} rule ${citation.numbers[0]} is not ${code}`,
        );
    });
    expect(wrong).toEqual([]);
  });
});
