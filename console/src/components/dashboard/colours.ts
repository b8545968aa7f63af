/**
 * The colours of the statuses in every chart, each at least 4.5:1 against the white card so that
 * bars and their legend's swatches stand out, and told apart by lightness as well as hue.
 */
export const STATUS_COLOURS = {
  delivered: '#1a7f37',
  failed: '#cf222e',
  unknown: '#6e7781',
  received: '#1f5fbf',
} as const;

export const SENT_STATUSES = ['delivered', 'failed', 'unknown'] as const;

export type SentStatus = (typeof SENT_STATUSES)[number];

export const STATUS_LABELS: Record<SentStatus | 'received', string> = {
  delivered: 'Delivered',
  failed: 'Failed',
  unknown: 'Unknown',
  received: 'Received',
};
