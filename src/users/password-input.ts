/**
 * The first line of standard input, without its line end: a password piped in, or typed at a
 * terminal without echo (the terminal is put in raw mode, so the typed characters are not shown).
 */
export function readPassword(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  return input.isTTY ? readFromTerminal(input) : readFirstLine(input);
}

function readFirstLine(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = () => {
      input.off('data', onData);
      input.off('end', finish);
      input.off('error', reject);
      input.pause();
      const end = text.indexOf('\n');
      const line = end < 0 ? text : text.slice(0, end);
      resolve(line.endsWith('\r') ? line.slice(0, -1) : line);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        finish();
      }
    };
    input.setEncoding('utf8');
    input.on('data', onData);
    input.on('end', finish);
    input.on('error', reject);
  });
}

function readFromTerminal(input: NodeJS.ReadStream): Promise<string> {
  process.stderr.write('Password: ');
  return new Promise((resolve, reject) => {
    let typed = '';
    const stop = () => {
      input.setRawMode(false);
      input.off('data', onData);
      input.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: Buffer | string) => {
      for (const character of chunk.toString()) {
        if (character === '\r' || character === '\n' || character === '\u0004') {
          stop();
          resolve(typed);
          return;
        }
        if (character === '\u0003') {
          stop();
          reject(new Error('no password given: interrupted.'));
          return;
        }
        typed =
          character === '\u007f' || character === '\b'
            ? [...typed].slice(0, -1).join('')
            : typed + character;
      }
    };
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
  });
}
