import { PassThrough } from 'node:stream';
import { readPassword } from './password-input';

/** A piped standard input holding `chunks`, then closed. */
function piped(...chunks: string[]): NodeJS.ReadStream {
  const stream = new PassThrough();
  for (const chunk of chunks) {
    stream.write(chunk);
  }
  stream.end();
  return stream as unknown as NodeJS.ReadStream;
}

/** A terminal: raw mode recorded, `typed` arriving as keystrokes once it is read. */
function terminal(typed: string[]): { input: NodeJS.ReadStream; rawModes: boolean[] } {
  const stream = new PassThrough();
  const rawModes: boolean[] = [];
  Object.assign(stream, {
    isTTY: true,
    setRawMode: (mode: boolean) => {
      rawModes.push(mode);
      return stream;
    },
  });
  setImmediate(() => typed.forEach((keys) => stream.write(keys)));
  return { input: stream as unknown as NodeJS.ReadStream, rawModes };
}

describe('readPassword', () => {
  let prompt: jest.SpyInstance;
  beforeEach(() => {
    prompt = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => prompt.mockRestore());

  describe('from a pipe: the first line, without its line end', () => {
    it.each([
      [['secret password\n'], 'secret password'],
      [['secret password\r\n'], 'secret password'],
      [['first line\nsecond line\n'], 'first line'],
      [['no line end'], 'no line end'],
      [['split ', 'over ', 'chunks\nrest'], 'split over chunks'],
      [['spaces kept  \n'], 'spaces kept  '],
      [['mot de passe é😀\n'], 'mot de passe é😀'],
      [[], ''],
    ])('%j gives %j', async (chunks, password) => {
      expect(await readPassword(piped(...chunks))).toBe(password);
      expect(prompt).not.toHaveBeenCalled();
    });
  });

  describe('from a terminal: without echo', () => {
    it('reads the typed line in raw mode, prompting on stderr, and leaves raw mode after', async () => {
      const { input, rawModes } = terminal(['sec', 'ret pasx\u007fs', '\r']);

      expect(await readPassword(input)).toBe('secret pass');
      expect(rawModes).toEqual([true, false]);
      expect(prompt).toHaveBeenCalledWith('Password: ');
    });

    it('gives up on Ctrl-C, leaving raw mode', async () => {
      const { input, rawModes } = terminal(['half\u0003']);

      await expect(readPassword(input)).rejects.toThrow('no password given: interrupted.');
      expect(rawModes).toEqual([true, false]);
    });
  });
});
