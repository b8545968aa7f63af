import { ChoiceRules, PhoneCandidate, choosePhone } from './phone-choice';

const phone = (id: number, overrides: Partial<PhoneCandidate> = {}): PhoneCandidate => ({
  id,
  status: 'available',
  priority: 0,
  mms: false,
  remaining: Infinity,
  readyIn: 0,
  ...overrides,
});
const RULES: ChoiceRules = { mms: false, phoneLimit: false, phonePriority: false };
const first = () => 0;
const last = () => 0.999;

describe('choosePhone', () => {
  it('chooses nothing without candidates', () => {
    expect(choosePhone([], RULES)).toBeNull();
  });

  it('picks among the candidates at random', () => {
    const phones = [phone(1), phone(2), phone(3)];

    expect(choosePhone(phones, RULES, first)?.id).toBe(1);
    expect(choosePhone(phones, RULES, last)?.id).toBe(3);
  });

  it('keeps MMS-capable phones for an MMS', () => {
    const phones = [phone(1), phone(2, { mms: true }), phone(3)];

    expect(choosePhone(phones, { ...RULES, mms: true }, last)?.id).toBe(2);
  });

  it('falls back to phones without MMS when none can send one', () => {
    expect(choosePhone([phone(1), phone(2)], { ...RULES, mms: true }, last)?.id).toBe(2);
  });

  it('keeps available phones', () => {
    const phones = [
      phone(1),
      phone(2, { status: 'unavailable' }),
      phone(3, { status: 'disabled' }),
    ];

    expect(choosePhone(phones, RULES, last)?.id).toBe(1);
  });

  it('falls back to unavailable phones when no phone is available', () => {
    const phones = [phone(1, { status: 'no_credit' }), phone(2, { status: 'disabled' })];

    expect(choosePhone(phones, RULES, last)?.id).toBe(2);
  });

  it('keeps phones with volume left when limits apply', () => {
    const phones = [phone(1, { remaining: 5 }), phone(2, { remaining: 0 })];

    expect(choosePhone(phones, { ...RULES, phoneLimit: true }, last)?.id).toBe(1);
  });

  it('ignores spent limits when the phone_limit setting is off', () => {
    const phones = [phone(1, { remaining: 5 }), phone(2, { remaining: 0 })];

    expect(choosePhone(phones, RULES, last)?.id).toBe(2);
  });

  it('keeps the highest priority when priorities apply', () => {
    const phones = [
      phone(1, { priority: 2 }),
      phone(2, { priority: 5 }),
      phone(3, { priority: 5 }),
    ];

    expect(choosePhone(phones, { ...RULES, phonePriority: true }, first)?.id).toBe(2);
    expect(choosePhone(phones, { ...RULES, phonePriority: true }, last)?.id).toBe(3);
  });

  it('applies availability before priority: an unavailable high-priority phone loses', () => {
    const phones = [phone(1, { priority: 9, status: 'unavailable' }), phone(2, { priority: 1 })];

    expect(choosePhone(phones, { ...RULES, phonePriority: true }, first)?.id).toBe(2);
  });

  it('applies limits before priority: a spent high-priority phone loses', () => {
    const phones = [
      phone(1, { priority: 9, remaining: 0 }),
      phone(2, { priority: 1, remaining: 3 }),
    ];

    expect(
      choosePhone(phones, { ...RULES, phoneLimit: true, phonePriority: true }, first)?.id,
    ).toBe(2);
  });

  it('keeps, among equals, the phones that can send soonest', () => {
    const phones = [
      phone(1, { readyIn: 9000 }),
      phone(2, { readyIn: 3000 }),
      phone(3, { readyIn: 3000 }),
      phone(4, { readyIn: 12000 }),
    ];

    expect(choosePhone(phones, RULES, first)?.id).toBe(2);
    expect(choosePhone(phones, RULES, last)?.id).toBe(3);
  });

  it('applies priority before the wait: a busy high-priority phone still wins', () => {
    const phones = [phone(1, { priority: 9, readyIn: 60_000 }), phone(2, { priority: 1 })];

    expect(choosePhone(phones, { ...RULES, phonePriority: true }, last)?.id).toBe(1);
    expect(choosePhone(phones, RULES, last)?.id).toBe(2);
  });
});
