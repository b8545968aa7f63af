import { ApiError } from '../common/errors/api-error';
import { Params } from '../common/params/parse';
import { checkSetting } from '../users/settings';

/** The parameter that authenticates a request: sent in a form, it is not a setting. */
const API_KEY = 'api_key';

/**
 * POST /api/setting/'s fields (docs/api.md#post_setting): every field but the API key is a
 * setting to change, each checked by the rule the CLI applies too; the first bad one refuses
 * the whole request.
 */
export function parseSettingsParams(params: Params): Record<string, string> {
  const changes: Record<string, string> = {};
  for (const [name, raw] of Object.entries(params)) {
    if (name === API_KEY) {
      continue;
    }
    // Numbers of a JSON body are taken as their text (`"mms": 0`).
    const value = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
    // Rules 1 and 2.
    const checked = checkSetting(name, value);
    if ('reason' in checked) {
      throw ApiError.invalid(checked.reason);
    }
    changes[name] = checked.value;
  }
  // Rule 3.
  if (Object.keys(changes).length === 0) {
    throw ApiError.missing('give at least one setting to change, as name=value.');
  }
  return changes;
}
