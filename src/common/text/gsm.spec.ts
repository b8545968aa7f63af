import { SegmentedMessage } from 'sms-segments-calculator';
import { measureSms, toGsmAlphabet } from './gsm';

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';

describe('toGsmAlphabet', () => {
  it('keeps every character of the GSM basic and extension tables', () => {
    const all = GSM_BASIC + GSM_EXTENSION;
    expect(toGsmAlphabet(all)).toBe(all);
  });

  it('keeps the accented letters GSM has: é, è, à, ù, ì, ò, É, Ç, Ä, Ö, Ñ, Ü, Å, Ø', () => {
    expect(toGsmAlphabet('Hélène à Zoé: ù ì ò É Ç Ä Ö Ñ Ü Å Ø')).toBe(
      'Hélène à Zoé: ù ì ò É Ç Ä Ö Ñ Ü Å Ø',
    );
  });

  it.each([
    ['ú', 'u'],
    ['á', 'a'],
    ['â', 'a'],
    ['ê', 'e'],
    ['ë', 'e'],
    ['î', 'i'],
    ['ï', 'i'],
    ['ô', 'o'],
    ['û', 'u'],
    ['ÿ', 'y'],
    ['À', 'A'],
    ['È', 'E'],
    ['Ú', 'U'],
    ['ń', 'n'],
    ['š', 's'],
    ['ł', 'l'],
  ])('spells %s, which GSM lacks, as its base letter %s', (accented, base) => {
    expect(toGsmAlphabet(accented)).toBe(base);
  });

  it('spells ç as c: GSM only has the capital Ç, which it keeps', () => {
    expect(toGsmAlphabet('français FRANÇAIS')).toBe('francais FRANÇAIS');
  });

  it('composes a letter followed by a combining accent before looking it up', () => {
    expect(toGsmAlphabet('e\u0301t\u00e9')).toBe('été');
    expect(toGsmAlphabet('u\u0301')).toBe('u');
  });

  it('straightens curly quotes and guillemets', () => {
    expect(toGsmAlphabet('‘a’ “b” «c» ‚d‛ „e‟')).toBe('\'a\' "b" "c" \'d\' "e"');
  });

  it('turns en dash, em dash and minus sign into a hyphen', () => {
    expect(toGsmAlphabet('1–2 — 3 − 4')).toBe('1-2 - 3 - 4');
  });

  it('spells the ellipsis as three dots', () => {
    expect(toGsmAlphabet('Wait…')).toBe('Wait...');
  });

  it('turns no-break and typographic spaces into spaces and drops zero-width characters', () => {
    expect(toGsmAlphabet('a\u00a0b\u2009c\u202fd\u200be\ufefff')).toBe('a b c de' + 'f');
  });

  it('spells ligatures letter by letter', () => {
    expect(toGsmAlphabet('œuvre ﬁn')).toBe('oeuvre fin');
  });

  it('writes Greek letters with the GSM Greek capitals or the Latin capitals they look like', () => {
    expect(toGsmAlphabet('αβγ ΑΒΓ')).toBe('ABΓ ABΓ');
  });

  it('replaces each emoji by one ?, even one made of several code points', () => {
    expect(toGsmAlphabet('ok 👍')).toBe('ok ?');
    expect(toGsmAlphabet('👍🏽 👨‍👩‍👧 🇫🇷')).toBe('? ? ?');
  });

  it('replaces characters without a GSM spelling by ?', () => {
    expect(toGsmAlphabet('日本 ж')).toBe('?? ?');
  });

  it('keeps CRLF line breaks', () => {
    expect(toGsmAlphabet('a\r\nb ú')).toBe('a\r\nb u');
  });

  it('always produces a text that is sent in GSM-7', () => {
    const text = 'Ça coûte 5 € — “merci” 🙂 日本 œ ﬁ ß ½ \t ø';
    expect(measureSms(toGsmAlphabet(text)).encoding).toBe('GSM-7');
  });
});

describe('measureSms', () => {
  it('fits 160 GSM characters in one SMS', () => {
    expect(measureSms('a'.repeat(160))).toEqual({ segments: 1, encoding: 'GSM-7' });
  });

  it('needs two SMS for 161 GSM characters, since each part then holds 153', () => {
    expect(measureSms('a'.repeat(161))).toEqual({ segments: 2, encoding: 'GSM-7' });
    expect(measureSms('a'.repeat(306))).toEqual({ segments: 2, encoding: 'GSM-7' });
    expect(measureSms('a'.repeat(307))).toEqual({ segments: 3, encoding: 'GSM-7' });
  });

  it('counts an extension character such as € as two septets', () => {
    expect(measureSms('€'.repeat(80))).toEqual({ segments: 1, encoding: 'GSM-7' });
    expect(measureSms('€'.repeat(81))).toEqual({ segments: 2, encoding: 'GSM-7' });
    expect(measureSms(`${'a'.repeat(159)}^`).segments).toBe(2);
  });

  it('never splits an extension character across two parts', () => {
    // 152 + 2 septets exceed a part's 153: the € moves whole to the second part, which then
    // holds 2 + 152 septets and overflows into a third.
    expect(measureSms(`${'a'.repeat(152)}€${'a'.repeat(152)}`).segments).toBe(3);
  });

  it('fits 70 UCS-2 characters in one SMS and needs two for 71', () => {
    expect(measureSms('ж'.repeat(70))).toEqual({ segments: 1, encoding: 'UCS-2' });
    expect(measureSms('ж'.repeat(71))).toEqual({ segments: 2, encoding: 'UCS-2' });
  });

  it('holds 67 UCS-2 characters per part of a long message', () => {
    expect(measureSms('ж'.repeat(134)).segments).toBe(2);
    expect(measureSms('ж'.repeat(135)).segments).toBe(3);
  });

  it('switches the whole message to UCS-2 for a single character outside GSM', () => {
    expect(measureSms(`${'a'.repeat(100)}ú`)).toEqual({ segments: 2, encoding: 'UCS-2' });
  });

  it('forces UCS-2 for an emoji and counts it as two code units', () => {
    expect(measureSms('😀')).toEqual({ segments: 1, encoding: 'UCS-2' });
    expect(measureSms('😀'.repeat(35)).segments).toBe(1);
    expect(measureSms('😀'.repeat(36)).segments).toBe(2);
  });

  it('counts a GSM character as one UCS-2 unit once the message is UCS-2', () => {
    expect(measureSms(`ж${'€'.repeat(69)}`)).toEqual({ segments: 1, encoding: 'UCS-2' });
  });

  it('agrees with sms-segments-calculator on texts mixing every kind of character', () => {
    const pieces = ['a', 'é', '€', '^', '\r\n', '\n', 'ж', 'ú', '😀', '👍🏽', '🇫🇷', ' '];
    let seed = 42;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let sample = 0; sample < 300; sample += 1) {
      const length = next() % 400;
      // Mostly GSM text, so that both encodings are drawn.
      const gsmOnly = next() % 2 === 0;
      let text = '';
      for (let i = 0; i < length; i += 1) {
        text += pieces[next() % (gsmOnly ? 6 : pieces.length)];
      }
      const reference = new SegmentedMessage(text);
      expect({ text, ...measureSms(text) }).toEqual({
        text,
        segments: reference.segmentsCount,
        encoding: reference.encodingName,
      });
    }
  });
});
