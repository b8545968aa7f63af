import { ApiError } from '../common/errors/api-error';
import { Params, isAbsent, parseId, requiredMessage } from '../common/params/parse';
import { PercentThreshold, parsePercent } from './percentages';

/** get_invalid_numbers' parameters (docs/api.md#get_invalid_numbers), all checked up front. */
export interface InvalidNumbersInput {
  volume: number;
  percentFailed: PercentThreshold;
  percentUnknown: PercentThreshold;
  page: number;
}

const REQUIRED = ['volume', 'percent_failed', 'percent_unknown'] as const;

export function parseInvalidNumbersParams(params: Params): InvalidNumbersInput {
  // Rule 1. Empty counts as absent, as for every other parameter.
  const missing = REQUIRED.filter((name) => isAbsent(params[name]));
  if (missing.length > 0) {
    throw ApiError.missing(requiredMessage(missing));
  }
  return {
    volume: parseId(params.volume, 'volume') as number,
    percentFailed: parsePercent(params.percent_failed, 'percent_failed'),
    percentUnknown: parsePercent(params.percent_unknown, 'percent_unknown'),
    page: parseId(params.page, 'page') ?? 0,
  };
}
