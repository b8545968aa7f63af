import { ApiError, ErrorCode, httpStatusOf } from '../common/errors/api-error';
import { UploadedFile } from '../common/http/request';
import {
  parseMergedScheduleParams,
  parseRemoveParams,
  parseScheduleParams,
  parseSendNowParams,
  parseUpdateScheduledParams,
} from './scheduled.params';
import { StoredMessage } from './scheduled-message';

const file = (fieldname: string): UploadedFile => ({
  fieldname,
  originalname: `${fieldname}.bin`,
  mimetype: 'application/octet-stream',
  path: `/tmp/${fieldname}`,
  size: 1,
});

const schedule = (params: Record<string, unknown>, files: UploadedFile[] = []) =>
  parseScheduleParams(params, files, 'FR', 'Europe/Paris');

describe('parseScheduleParams', () => {
  it('reads the scalar parameters of rules 1 to 4, at in the service time zone', () => {
    const input = schedule({ text: 'Hi', at: '2030-07-01 02:00:00', flash: '1', tag: 'x' });

    expect(input).toMatchObject({
      text: 'Hi',
      at: '2030-07-01 00:00:00',
      flash: true,
      mms: false,
      tag: 'x',
      priority: 'normal',
    });
  });

  it('reads priority, high or normal, normal when absent or empty', () => {
    expect(schedule({ text: 'Hi', priority: 'high' }).priority).toBe('high');
    expect(schedule({ text: 'Hi', priority: 'normal' }).priority).toBe('normal');
    expect(schedule({ text: 'Hi', priority: '' }).priority).toBe('normal');
  });

  it('refuses any other priority with INVALID_PARAMETER naming it, after at', () => {
    expect(() => schedule({ text: 'Hi', priority: 'urgent' })).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_PARAMETER,
        message:
          'You have specified an invalid parameter : priority must be high or normal, got "urgent".',
      }),
    );
    expect(() => schedule({ text: 'Hi', priority: ['high'] })).toThrow(
      'priority must be high or normal, got a list.',
    );
    expect(() => schedule({ text: 'Hi', at: 'soon', priority: 'urgent' })).toThrow(/^.*: at must/);
  });

  it('reads the recipients: numbers normalised, invalid ones dropped, ids without repeats', () => {
    const input = schedule({
      text: 'Hi',
      numbers: ['0612345678', 'nope', { number: '+33612345679', data: '{"a":1}' }],
      contacts: ['3', '3', '4'],
    });

    expect(input.numbers.get()).toEqual([
      { number: '+33612345678', data: '[]' },
      { number: '+33612345679', data: '{"a":1}' },
    ]);
    expect(input.contactIds.get()).toEqual([3, 4]);
    expect(input.groupIds.get()).toEqual([]);
    expect(input.phone.get()).toEqual({ phoneId: undefined, phoneGroupId: undefined });
  });

  it('throws the first error of rules 1 to 4 at once, text before at', () => {
    expect(() => schedule({ at: 'soon' })).toThrow(
      expect.objectContaining({ code: ErrorCode.MISSING_PARAMETER }),
    );
    expect(() => schedule({ text: 'Hi', at: 'soon' })).toThrow(
      'at must be a date of format "YYYY-MM-DD HH:MM:SS" in the Europe/Paris time zone, got "soon".',
    );
  });

  it('keeps the errors of the rules after 5 for the service to throw in their turn', () => {
    const input = schedule({
      text: 'Hi',
      numbers: [{ number: '+33612345678', data: 'not json' }],
      groups: ['x'],
      id_phone: '1',
      id_phone_group: '2',
    });

    expect(() => input.numbers.get()).toThrow('numbers[0][data] must be valid JSON');
    expect(() => input.groupIds.get()).toThrow('groups[0] must be a non-negative integer');
    expect(() => input.phone.get()).toThrow('at most one of id_phone or id_phone_group');
    expect(input.contactIds.get()).toEqual([]);
  });

  it('takes the one numbers_csv upload, refuses several or one sent as text', () => {
    expect(schedule({ text: 'Hi' }, [file('numbers_csv')]).numbersCsv.get()).toEqual(
      file('numbers_csv'),
    );
    expect(() =>
      schedule({ text: 'Hi' }, [file('numbers_csv'), file('numbers_csv[]')]).numbersCsv.get(),
    ).toThrow('csv : send one numbers_csv file, not several.');
    expect(() => schedule({ text: 'Hi', numbers_csv: '+336' }).numbersCsv.get()).toThrow(
      'csv : numbers_csv must be a file sent in a multipart/form-data body.',
    );
  });

  it('uses media uploads only with mms', () => {
    const files = [file('medias'), file('numbers_csv')];

    expect(schedule({ text: 'Hi' }, files).medias.get()).toEqual([]);
    expect(schedule({ text: 'Hi', mms: '1' }, files).medias.get()).toEqual([file('medias')]);
    expect(() => schedule({ text: 'Hi', mms: '1', medias: 'x' }).medias.get()).toThrow(
      'medias must be files sent in a multipart/form-data body.',
    );
  });
});

describe('validity', () => {
  it('is null when absent or empty, and the minutes given otherwise', () => {
    expect(schedule({ text: 'Hi' }).validity).toBeNull();
    expect(schedule({ text: 'Hi', validity: '' }).validity).toBeNull();
    expect(schedule({ text: 'Hi', validity: '1' }).validity).toBe(1);
    expect(schedule({ text: 'Hi', validity: 10080 }).validity).toBe(10080);
  });

  it.each([
    ['0', '"0"'],
    ['10081', '"10081"'],
    ['-5', '"-5"'],
    ['1.5', '"1.5"'],
    [' 5', '" 5"'],
    ['an hour', '"an hour"'],
    [2.5, '2.5'],
    [true, 'true'],
    [['5'], 'a list'],
  ])('refuses %p with INVALID_PARAMETER naming validity and what it takes', (value, shown) => {
    let error: unknown;
    try {
      schedule({ text: 'Hi', validity: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: ErrorCode.INVALID_PARAMETER,
      message:
        'You have specified an invalid parameter : validity must be a whole number of minutes ' +
        `from 1 to 10080 (7 days), counted from the message's at, or left out for no limit; got ${shown}.`,
    });
    expect(httpStatusOf(error as ApiError)).toBe(400);
  });

  it('is checked with rule 4: after at, before the recipients of rule 7', () => {
    expect(() => schedule({ text: 'Hi', at: 'soon', validity: '0' })).toThrow(/ : at must be/);
    expect(() => schedule({ text: 'Hi', validity: '0', groups: ['x'] })).toThrow(
      / : validity must be/,
    );
  });
});

describe('window', () => {
  it("is null (the user's send_window) when absent or empty, none, or the window given, trimmed", () => {
    expect(schedule({ text: 'Hi' }).window).toBeNull();
    expect(schedule({ text: 'Hi', window: '' }).window).toBeNull();
    expect(schedule({ text: 'Hi', window: 'NONE' }).window).toBe('none');
    expect(schedule({ text: 'Hi', window: ' mon-fri 08:00-20:00, sat 10:00-18:00 ' }).window).toBe(
      'mon-fri 08:00-20:00, sat 10:00-18:00',
    );
    expect(
      parseSendNowParams({ to: '+33612345678', text: 'Hi', window: 'none' }, ''),
    ).toMatchObject({ window: 'none' });
  });

  it.each([
    ['nights', ': "nights" is not a range; got "nights".'],
    [
      '09:00-09:00',
      ': "09:00-09:00" starts and ends at once; for the whole day write 00:00-24:00; got "09:00-09:00".',
    ],
    ['mon-fri', ': days at the end are not followed by a range; got "mon-fri".'],
    [8, '; got 8.'],
  ])('refuses %p with INVALID_PARAMETER saying what a window is', (value, end) => {
    expect(() => schedule({ text: 'Hi', window: value })).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_PARAMETER,
        message:
          'You have specified an invalid parameter : window must be none (any time), one or more ' +
          'HH:MM-HH:MM ranges separated by commas, each optionally preceded by days ' +
          '(mon-fri 08:00-20:00, sat 10:00-18:00); a range may cross midnight (22:00-06:00), or ' +
          `left out for your send_window setting${end}`,
      }),
    );
  });
});

describe('parseSendNowParams', () => {
  it('reads to in the default country, the text and id_phone', () => {
    expect(parseSendNowParams({ to: '0612345678', text: 'Hi', id_phone: '2' }, 'FR')).toEqual({
      to: '+33612345678',
      text: 'Hi',
      priority: 'normal',
      phoneId: 2,
      validity: null,
      window: null,
    });
  });

  it('reads validity in minutes, from the query string or a JSON number', () => {
    expect(
      parseSendNowParams({ to: '+33612345678', text: 'Hi', validity: '15' }, ''),
    ).toMatchObject({ validity: 15 });
    expect(
      parseSendNowParams({ to: '+33612345678', text: 'Hi', validity: 10080 }, ''),
    ).toMatchObject({ validity: 10080 });
  });

  it('refuses a validity out of 1 to 10080 minutes with INVALID_PARAMETER naming it, after the text', () => {
    expect(() => parseSendNowParams({ to: '+33612345678', text: 'Hi', validity: '0' }, '')).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_PARAMETER,
        message:
          'You have specified an invalid parameter : validity must be a whole number of minutes ' +
          "from 1 to 10080 (7 days), counted from the message's at, or left out for no limit; " +
          'got "0".',
      }),
    );
    expect(() =>
      parseSendNowParams({ to: '+33612345678', text: 'a'.repeat(1001), validity: 'x' }, ''),
    ).toThrow('text must be at most 1000 characters long');
  });

  it('reads priority, and refuses one that is not high or normal after the text', () => {
    expect(parseSendNowParams({ to: '+33612345678', text: 'Hi', priority: 'high' }, '')).toEqual({
      to: '+33612345678',
      text: 'Hi',
      priority: 'high',
      phoneId: undefined,
      validity: null,
      window: null,
    });
    expect(() =>
      parseSendNowParams({ to: '+33612345678', text: 'Hi', priority: '2', id_phone: 'x' }, ''),
    ).toThrow('priority must be high or normal, got "2".');
    expect(() =>
      parseSendNowParams({ to: '+33612345678', text: 'a'.repeat(1001), priority: '2' }, ''),
    ).toThrow('text must be at most 1000 characters long');
  });

  it('names what is missing or invalid together with MISSING_PARAMETER', () => {
    expect(() => parseSendNowParams({ to: '12' }, '')).toThrow(
      expect.objectContaining({
        code: ErrorCode.MISSING_PARAMETER,
        message: 'One require parameter is missing : to ("12" is not a valid phone number), text.',
      }),
    );
  });

  it('refuses a text longer than 1000 characters before looking at id_phone', () => {
    expect(() =>
      parseSendNowParams({ to: '+33612345678', text: 'a'.repeat(1001), id_phone: 'x' }, ''),
    ).toThrow('text must be at most 1000 characters long, got 1001.');
  });
});

describe('parseRemoveParams', () => {
  it('reads the id, absent when empty', () => {
    expect(parseRemoveParams({ id: '5' })).toEqual({ id: 5 });
    expect(parseRemoveParams({ id: '' })).toEqual({ id: undefined });
  });
});

describe('parseUpdateScheduledParams and parseMergedScheduleParams', () => {
  const stored: StoredMessage = {
    at: '2030-01-01 00:00:00',
    text: 'Stored',
    flash: false,
    mms: true,
    tag: 'old',
    priority: 'high',
    phoneId: 7,
    phoneGroupId: null,
    validity: 30,
    window: 'mon-fri 08:00-20:00',
    numbers: [{ number: '+33612345678', data: '{"a":1}' }],
    contactIds: [1],
    groupIds: [2],
    conditionalGroupIds: [],
  };
  const merged = (params: Record<string, unknown>, message: StoredMessage = stored) =>
    parseMergedScheduleParams(
      message,
      parseUpdateScheduledParams({ id: '5', ...params }, []).sent,
      'FR',
      'Europe/Paris',
    );

  it('keeps every stored field not sent, the stored at included', () => {
    const input = merged({ api_key: 'k', other: 'ignored' });

    expect(input).toMatchObject({
      at: stored.at,
      text: 'Stored',
      mms: true,
      tag: 'old',
      validity: 30,
      priority: 'high',
      window: 'mon-fri 08:00-20:00',
    });
    expect(input.numbers.get()).toEqual(stored.numbers);
    expect(input.contactIds.get()).toEqual([1]);
    expect(input.phone.get()).toEqual({ phoneId: 7, phoneGroupId: undefined });
  });

  it('replaces the fields and lists sent, an empty list emptying it', () => {
    const input = merged({
      text: 'New',
      at: '2030-07-01 02:00:00',
      contacts: '',
      tag: '',
      priority: 'normal',
    });

    expect(input).toMatchObject({
      text: 'New',
      at: '2030-07-01 00:00:00',
      tag: null,
      priority: 'normal',
    });
    expect(input.contactIds.get()).toEqual([]);
    expect(input.groupIds.get()).toEqual([2]);
  });

  it("changes the window sent, and goes back to the user's when sent empty", () => {
    expect(merged({ window: 'none' }).window).toBe('none');
    expect(merged({ window: '22:00-06:00' }).window).toBe('22:00-06:00');
    expect(merged({ window: '' }).window).toBeNull();
    expect(() => merged({ window: 'nights' })).toThrow(/window must be none/);
  });

  it('changes the validity sent, and removes it when sent empty', () => {
    expect(merged({ validity: '120' }).validity).toBe(120);
    expect(merged({ validity: '' }).validity).toBeNull();
    expect(() => merged({ validity: '99999' })).toThrow(/validity must be a whole number/);
  });

  it('switches between a phone and a phone group only when the other one is sent empty', () => {
    expect(merged({ id_phone: '', id_phone_group: '3' }).phone.get()).toEqual({
      phoneId: undefined,
      phoneGroupId: 3,
    });
    expect(merged({ id_phone: '' }).phone.get()).toEqual({
      phoneId: undefined,
      phoneGroupId: undefined,
    });
    const inGroup = { ...stored, phoneId: null, phoneGroupId: 3 };
    expect(merged({ id_phone: '7', id_phone_group: '' }, inGroup).phone.get()).toEqual({
      phoneId: 7,
      phoneGroupId: undefined,
    });
  });

  it('refuses a phone group sent while the stored message names a phone, naming id_phone and telling to empty it', () => {
    expect(() => merged({ id_phone_group: '3' }).phone.get()).toThrow(
      'You have specified an invalid parameter : id_phone : this message is sent through the ' +
        'phone 7, and a message names a phone or a phone group, not both; send id_phone= ' +
        '(empty) with id_phone_group=3 to send it through that phone group instead.',
    );
  });

  it('refuses a phone sent while the stored message names a phone group, telling to empty id_phone_group', () => {
    const inGroup = { ...stored, phoneId: null, phoneGroupId: 3 };

    expect(() => merged({ id_phone: '7' }, inGroup).phone.get()).toThrow(
      /^You have specified an invalid parameter : id_phone : this message is sent through the phone group 3, .*; send id_phone_group= \(empty\) with id_phone=7 to send it through that phone instead\.$/,
    );
  });

  it('refuses both sent with the words of post_scheduled', () => {
    expect(() => merged({ id_phone: '7', id_phone_group: '3' }).phone.get()).toThrow(
      'id_phone, id_phone_group : You must specify at most one of id_phone or id_phone_group, not both.',
    );
  });

  it('refuses medias and numbers_csv, as fields or files, naming them', () => {
    expect(() => parseUpdateScheduledParams({ id: '5', medias: 'x' }, [])).toThrow(
      /^You have specified an invalid parameter : medias : /,
    );
    expect(() =>
      parseUpdateScheduledParams({ id: '5' }, [file('numbers_csv'), file('medias[]')]),
    ).toThrow(/^You have specified an invalid parameter : medias, numbers_csv : /);
  });

  it('checks the id first', () => {
    expect(() => parseUpdateScheduledParams({ id: 'x', medias: 'x' }, [])).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_PARAMETER,
        message: expect.stringMatching(/: id must be/),
      }),
    );
  });
});

/*
 * post_scheduled's refusals of parameters sent as JSON values, as the API answers them: the HTTP
 * status the exception filter gives them, the code and the start of the message. The e2e spec
 * (test/e2e/scheduled.e2e.spec.ts) keeps one of each over HTTP, and the form-encoded ones.
 */
describe('post_scheduled refusals', () => {
  const INVALID = 'You have specified an invalid parameter : ';
  const MISSING = 'One require parameter is missing : ';
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** The refusal of `action`, as the API answers it. */
  const refusal = (action: () => unknown) => {
    try {
      action();
    } catch (error) {
      if (error instanceof ApiError) {
        return { status: httpStatusOf(error), code: error.code, message: error.message };
      }
      throw error;
    }
    throw new Error('expected an ApiError');
  };
  /** HTTP 400 with `code` and a message starting with `message`. */
  const refused = (code: ErrorCode, message: string) => ({
    status: 400,
    code,
    message: expect.stringMatching(new RegExp(`^${escaped(message)}`)),
  });
  /** The parameters as the app reads them, in its service time zone. */
  const post = (params: Record<string, unknown>) =>
    parseScheduleParams(params, [], '', 'Europe/Paris');

  it('refuses a JSON null text with MISSING_PARAMETER naming text', () => {
    expect(refusal(() => post({ text: null, numbers: '+33612345678' }))).toEqual(
      refused(ErrorCode.MISSING_PARAMETER, `${MISSING}text`),
    );
  });

  it.each<unknown>([20300101, { date: '2030-01-01 00:00:00' }, ['2030-01-01 00:00:00'], true])(
    'refuses an at of %p, not a string, with INVALID_PARAMETER naming at',
    (at) => {
      expect(refusal(() => post({ text: 'Hi', at, numbers: '+33612345678' }))).toEqual(
        refused(ErrorCode.INVALID_PARAMETER, `${INVALID}at must be a string.`),
      );
    },
  );

  it.each<unknown>([12, { a: 'b' }, ['Hi'], true])(
    'refuses a text of %p, not a string, with INVALID_PARAMETER naming text',
    (text) => {
      expect(refusal(() => post({ text, numbers: '+33612345678' }))).toEqual(
        refused(ErrorCode.INVALID_PARAMETER, `${INVALID}text must be a string.`),
      );
    },
  );

  it('checks at before text', () => {
    expect(refusal(() => post({ text: 1, at: 2, numbers: '+33612345678' }))).toEqual(
      refused(ErrorCode.INVALID_PARAMETER, `${INVALID}at must be a string.`),
    );
  });

  it('refuses 1001 code points with INVALID_PARAMETER naming text, before the date format', () => {
    expect(
      refusal(() => post({ text: '😀'.repeat(1001), at: 'tomorrow', numbers: '+33612345678' })),
    ).toEqual(
      refused(
        ErrorCode.INVALID_PARAMETER,
        `${INVALID}text must be at most 1000 characters long, got 1001.`,
      ),
    );
  });

  it.each([
    '2030-01-01',
    '2030-01-01T10:00:00',
    '2030-1-1 10:00:00',
    '2030-01-01 24:00:00',
    'tomorrow',
  ])(
    'refuses an at of %p, not a calendar-valid YYYY-MM-DD HH:MM:SS, with INVALID_PARAMETER',
    (at) => {
      expect(refusal(() => post({ text: 'Hi', at, numbers: '+33612345678' }))).toEqual(
        refused(
          ErrorCode.INVALID_PARAMETER,
          `${INVALID}at must be a date of format "YYYY-MM-DD HH:MM:SS"`,
        ),
      );
    },
  );

  it('refuses an mms that is not a boolean with INVALID_PARAMETER naming it', () => {
    expect(refusal(() => post({ text: 'Hi', numbers: '+33612345678', mms: 'sure' }))).toEqual(
      refused(ErrorCode.INVALID_PARAMETER, `${INVALID}mms must be a boolean`),
    );
  });

  it('refuses a tag over 1000 characters or not a string with INVALID_PARAMETER naming tag', () => {
    expect(
      refusal(() => post({ text: 'Hi', tag: 'x'.repeat(1001), numbers: '+33612345678' })),
    ).toEqual(
      refused(ErrorCode.INVALID_PARAMETER, `${INVALID}tag must be at most 1000 characters long.`),
    );
    expect(refusal(() => post({ text: 'Hi', tag: ['a'], numbers: '+33612345678' }))).toEqual(
      refused(ErrorCode.INVALID_PARAMETER, `${INVALID}tag must be a string.`),
    );
  });

  it.each(['null', '{"a":'])(
    'refuses number data %p, not JSON or the JSON null, with INVALID_PARAMETER naming it',
    (data) => {
      const input = post({
        text: 'Hi',
        numbers: ['+33612345670', { number: '+33612345678', data }],
      });
      expect(refusal(() => input.numbers.get())).toEqual(
        refused(
          ErrorCode.INVALID_PARAMETER,
          `${INVALID}numbers[1][data] must be valid JSON other than null, or left out`,
        ),
      );
    },
  );

  it('refuses both id_phone and id_phone_group with INVALID_PARAMETER naming both', () => {
    const input = post({ text: 'Hi', numbers: '+33612345678', id_phone: 1, id_phone_group: 2 });
    expect(refusal(() => input.phone.get())).toEqual(
      refused(
        ErrorCode.INVALID_PARAMETER,
        `${INVALID}id_phone, id_phone_group : You must specify at most one of id_phone or id_phone_group, not both.`,
      ),
    );
  });
});
