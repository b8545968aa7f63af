import { measureSms, toGsmAlphabet } from '../../../../src/common/text/gsm';

/** The API's limit on a text, in Unicode characters (code points). */
export const MAX_TEXT = 1000;

/**
 * The live length of a text: its characters against the API's limit, and the SMS segments and
 * encoding its sent entry will record, computed by the dispatch's own code (imported from the
 * server). With `gsm` (the setting force_gsm_alphabet), the text is counted as the dispatch
 * sends it, transliterated to the GSM alphabet first.
 */
export function SmsCount({ text, gsm }: { text: string; gsm: boolean }) {
  const sent = gsm ? toGsmAlphabet(text) : text;
  const { segments, encoding } = measureSms(sent);
  const characters = [...text].length;
  return (
    <span className="sms-count" aria-live="polite">
      <span className={characters > MAX_TEXT ? 'over' : undefined}>
        {characters} / {MAX_TEXT} characters
      </span>
      {' · '}
      <span>
        {segments} SMS {segments === 1 ? 'segment' : 'segments'}
      </span>
      {' · '}
      <span>{encoding}</span>
      {gsm && sent !== text && (
        <span className="muted"> (counted as transliterated to the GSM alphabet)</span>
      )}
    </span>
  );
}
