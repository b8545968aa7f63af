import { ApiError } from '../common/errors/api-error';
import { Deferred } from '../common/params/deferred';
import { parseEntryName, requireEntryName } from '../common/params/entry-name';
import { isAbsent, Params, parseId } from '../common/params/parse';
import { compileCondition } from '../text/condition';

/** post_conditional_group's parameters (docs/api.md#post_conditional_group), rules 1 and 2. */
export interface CreateConditionalGroupInput {
  name: string;
  condition: string;
}

/** The fields an update changes; one not sent is undefined and keeps its stored value. */
export interface ConditionalGroupChanges {
  name?: string;
  condition?: string;
}

/**
 * post_update_conditional_group's parameters (docs/api.md#post_update_conditional_group): rule 1
 * looks the group up before rule 2 reads the changes.
 */
export interface UpdateConditionalGroupInput {
  id: number;
  changes: Deferred<ConditionalGroupChanges>;
}

/** The id of one conditional group (read one, delete). */
export interface ConditionalGroupIdInput {
  id: number;
}

/** get_conditional_group_contacts' parameters: the group and the page of its contacts. */
export interface GroupContactsInput {
  id: number;
  page: number;
}

/** get_conditional_group_preview's parameters. */
export interface PreviewInput {
  condition: string;
  page: number;
}

const EXAMPLE = "such as contact.gender == 'female'";

export function parseCreateConditionalGroupParams(params: Params): CreateConditionalGroupInput {
  // Rule 1.
  const name = requireEntryName(params.name);
  // Rule 2.
  return { name, condition: requireCondition(params.condition) };
}

export function parseUpdateConditionalGroupParams(params: Params): UpdateConditionalGroupInput {
  return {
    id: requiredId(params.id),
    changes: Deferred.parse(() => ({
      name: parseEntryName(params.name),
      condition: parseCondition(params.condition),
    })),
  };
}

export function parseConditionalGroupIdParams(params: Params): ConditionalGroupIdInput {
  return { id: requiredId(params.id) };
}

export function parseGroupContactsParams(params: Params): GroupContactsInput {
  return { id: requiredId(params.id), page: parsePage(params.page) };
}

export function parsePreviewParams(params: Params): PreviewInput {
  // Rule 1.
  const condition = requireCondition(params.condition);
  // Rule 2.
  return { condition, page: parsePage(params.page) };
}

function requireCondition(value: unknown): string {
  if (isAbsent(value)) {
    throw ApiError.missing(
      `condition is required: an expression over contact and contact_metas, ${EXAMPLE}.`,
    );
  }
  return parseCondition(value) as string;
}

/**
 * A condition, when sent: a text the dispatch can use, checked by the compiler the dispatch runs
 * (length, syntax, variables, functions, patterns), whose reason is quoted.
 */
function parseCondition(value: unknown): string | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value !== 'string') {
    throw ApiError.invalid(`condition must be a text, ${EXAMPLE}.`);
  }
  const { error } = compileCondition(value);
  if (error !== null) {
    throw ApiError.invalid(`condition : ${error}`);
  }
  return value;
}

function parsePage(value: unknown): number {
  return parseId(value, 'page') ?? 0;
}

function requiredId(value: unknown): number {
  const id = parseId(value, 'id');
  if (id === undefined) {
    throw ApiError.missing('id is required: the id of one of your conditional groups.');
  }
  return id;
}
