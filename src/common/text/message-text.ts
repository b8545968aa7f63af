/**
 * The text of a message, scheduled, sent or received, in Unicode code points: the `text`
 * columns are VARCHAR(1000). A longer received text is stored in several rows.
 */
export const MAX_TEXT_CHARACTERS = 1000;
