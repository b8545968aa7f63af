/** The GSM 03.38 basic character set (without the escape code, 0x1B). */
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/** The GSM 03.38 extension table: each costs two septets (escape + code). */
const GSM_EXTENSION = '\f^{}\\[~]|€';

const GSM_CHARACTERS = new Set([...GSM_BASIC, ...GSM_EXTENSION]);

/** Septets per UTF-16 code unit: 1 (basic table), 2 (extension table) or 0 (not in GSM). */
const SEPTETS = new Uint8Array(0x10000);
for (const character of GSM_BASIC) {
  SEPTETS[character.charCodeAt(0)] = 1;
}
for (const character of GSM_EXTENSION) {
  SEPTETS[character.charCodeAt(0)] = 2;
}

/**
 * Look-alikes that Unicode decomposition does not reach. `ç` is deliberately absent: GSM only has
 * the capital `Ç`, and "francais" reads better than "franÇais", so it loses its cedilla like any
 * other accented letter the alphabet lacks.
 */
const FALLBACKS: ReadonlyMap<string, string> = new Map([
  ...[...'‘’‚‛′`´'].map((c): [string, string] => [c, "'"]),
  ...[...'“”„‟″«»'].map((c): [string, string] => [c, '"']),
  ...[...'‐‑‒–—―−'].map((c): [string, string] => [c, '-']),
  ['\t', ' '],
  ['œ', 'oe'],
  ['Œ', 'OE'],
  ['ł', 'l'],
  ['Ł', 'L'],
  ['đ', 'd'],
  ['Đ', 'D'],
  ['ð', 'd'],
  ['Ð', 'D'],
  ['þ', 'th'],
  ['Þ', 'TH'],
  ['ı', 'i'],
  // Greek letters print with the Latin capitals they look like or with GSM's own Greek capitals.
  ...greekFallbacks(),
]);

function greekFallbacks(): Array<[string, string]> {
  const capitals = 'ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ';
  const lookalikes = 'ABΓΔEZHΘIKΛMNΞOΠPΣTYΦXΨΩ';
  const smalls = 'αβγδεζηθικλμνξοπρστυφχψω';
  const pairs: Array<[string, string]> = [];
  [...capitals].forEach((capital, index) => {
    pairs.push([capital, lookalikes[index]], [smalls[index], lookalikes[index]]);
  });
  pairs.push(['ς', 'Σ']);
  return pairs.filter(([from, to]) => from !== to);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Characters that join their neighbours into one user-perceived character: combining marks,
 * joiners, variation selectors, emoji modifiers and tags, regional indicators, Hangul jamo.
 */
const CLUSTERING =
  /\p{M}|\u200C|\u200D|\uFE0E|\uFE0F|\p{Emoji_Modifier}|[\u{E0020}-\u{E007F}]|\p{RI}|[\u1100-\u11FF]/u;

/** Combining marks and invisible format characters (zero-width spaces, joiners, BOM). */
const MARKS_AND_FORMATS = /[\p{M}\p{Cf}]/gu;

/**
 * The text in the GSM 03.38 alphabet (basic and extension tables), as RaspiSMS's
 * `force_gsm_alphabet` setting wants it: characters of the alphabet stay, others become their
 * closest GSM spelling (`ú` → `u`, `“` → `"`, `–` → `-`, `…` → `...`), and what has none becomes
 * `?` (one per user-perceived character, so an emoji is one `?`).
 */
export function toGsmAlphabet(text: string): string {
  if (isGsm(text)) {
    return text;
  }
  let result = '';
  for (const character of characters(text)) {
    result += spellings.get(character) ?? remember(character, transliterate(character));
  }
  return result;
}

/** Spellings of single code points, which recur from text to text; bounded, as any cache. */
const spellings = new Map<string, string>();
const MAX_REMEMBERED_SPELLINGS = 10_000;

function remember(character: string, spelling: string): string {
  if (spellings.size < MAX_REMEMBERED_SPELLINGS && [...character].length === 1) {
    spellings.set(character, spelling);
  }
  return spelling;
}

/**
 * The user-perceived characters of the text. Most texts have no clustering character, and then
 * they are its code points: the grapheme segmenter, ten times slower, is only needed for others.
 */
function characters(text: string): Iterable<string> {
  if (!CLUSTERING.test(text)) {
    return text;
  }
  return Array.from(graphemes.segment(text), ({ segment }) => segment);
}

function transliterate(cluster: string): string {
  const composed = cluster.normalize('NFC');
  if (isGsm(composed)) {
    return composed;
  }
  const fallback = FALLBACKS.get(composed);
  if (fallback !== undefined) {
    return fallback;
  }
  let spelled = '';
  for (const character of composed.normalize('NFKD').replace(MARKS_AND_FORMATS, '')) {
    const replacement = GSM_CHARACTERS.has(character) ? character : FALLBACKS.get(character);
    if (replacement === undefined) {
      return '?';
    }
    spelled += replacement;
  }
  return spelled;
}

function isGsm(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    if (SEPTETS[text.charCodeAt(i)] === 0) {
      return false;
    }
  }
  return true;
}

export interface SmsMeasure {
  segments: number;
  encoding: 'GSM-7' | 'UCS-2';
}

/** A single SMS carries 140 octets: 160 septets or 70 UTF-16 code units. */
const SINGLE_SEPTETS = 160;
const SINGLE_UNITS = 70;
/** Each part of a long message gives 6 octets to the concatenation header. */
const PART_SEPTETS = 153;
const PART_UNITS = 67;

/**
 * How many SMS the text takes: GSM-7 when every character is in the GSM alphabet (160 septets, or
 * 153 per part of a long message, an extension character taking two), else UCS-2 (70 UTF-16 code
 * units, or 67 per part; a character outside the BMP takes two). A character is never split
 * across two parts.
 *
 * The figures are those of sms-segments-calculator (its spec checks them against it), which is
 * quadratic in the text's length — milliseconds per message, too slow to run per recipient.
 */
export function measureSms(text: string): SmsMeasure {
  if (lastMeasured.text !== text) {
    lastMeasured = { text, measure: measure(text) };
  }
  return lastMeasured.measure;
}

/**
 * The last text measured: the dispatch measures each recipient's text at its claim and at its
 * record, and a campaign's are all the same. Frozen, since every caller shares it.
 */
let lastMeasured: { text: string; measure: Readonly<SmsMeasure> } = {
  text: '',
  measure: Object.freeze(measure('')),
};

function measure(text: string): Readonly<SmsMeasure> {
  if (isGsm(text)) {
    return Object.freeze({
      segments: countParts(gsmCosts(text), SINGLE_SEPTETS, PART_SEPTETS),
      encoding: 'GSM-7',
    });
  }
  return Object.freeze({
    segments: countParts(ucs2Costs(text), SINGLE_UNITS, PART_UNITS),
    encoding: 'UCS-2',
  });
}

function gsmCosts(text: string): number[] {
  const costs: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    costs.push(SEPTETS[text.charCodeAt(i)]);
  }
  return costs;
}

/** Code units per user-perceived character, which handsets never split (but CR LF is two). */
function ucs2Costs(text: string): number[] {
  const costs: number[] = [];
  for (const character of characters(text)) {
    if (character === '\r\n') {
      costs.push(1, 1);
    } else {
      costs.push(character.length);
    }
  }
  return costs;
}

function countParts(costs: number[], single: number, perPart: number): number {
  const total = costs.reduce((sum, cost) => sum + cost, 0);
  if (total <= single) {
    return 1;
  }
  let parts = 1;
  let used = 0;
  for (const cost of costs) {
    if (used > 0 && used + cost > perPart) {
      parts += 1;
      used = 0;
    }
    used += cost;
  }
  return parts;
}
