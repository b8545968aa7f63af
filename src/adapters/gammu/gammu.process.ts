import { spawn } from 'node:child_process';
import { formatDuration } from '../../common/net/http-answers';
import { commandEnvironment } from '../../config/command-environment';
import { RefusalCause } from '../adapter';

/**
 * The gammu command as a process: running it for a modem, one command at a time, within a
 * deadline; what it printed; why it failed.
 */

/** How one gammu command ended. */
export type GammuRun =
  | { kind: 'exited'; code: number | null; stdout: string; stderr: string }
  | { kind: 'timeout'; stdout: string }
  | { kind: 'not_started'; code: string | undefined };

/** Why a gammu command failed, in words for the user, and whether trying later may work. */
export interface GammuFailure {
  reason: string;
  transient: boolean;
}

/** gammu's answers are a few lines; more is not kept. */
const MAX_OUTPUT_CHARS = 64 * 1024;

/**
 * Exit codes gammu documents (GSM_Error + 100) for a modem it cannot use right now: device
 * unknown or busy (102), locked (103), missing (104), opened by another program (105), not
 * connected (108, 133), no answer in time (114), in a menu (132), busy (166). Trying later
 * may work; any other failure is one a retry will not fix.
 */
const MODEM_UNAVAILABLE = new Set([102, 103, 104, 105, 108, 114, 132, 133, 166]);

/** A part of a message the network accepted, as `gammu sendsms` prints it. */
const SENT_PART = /\.\.OK, message reference=(\d+)/g;

/**
 * A part of a message the network refused, as `gammu sendsms` prints it before exiting: the
 * error is the network's (an RP cause of 3GPP TS 24.011, or a +CMS ERROR of TS 27.005).
 */
const REFUSED_PART = /\.\.error (\d+), message reference=/;

/**
 * The network's refusals that concern the sending SIM rather than the recipient
 * (docs/adapters.md#refusals): RP causes 8 (operator determined barring), 10 (call barred), 28
 * (unidentified subscriber), 29 (facility rejected), 30 (unknown subscriber), 50 (facility not
 * subscribed), 69 (facility not implemented), the network failing (38, 41, 42, 47), and the
 * modem's and SIM's own errors (+CMS ERROR 300 and above: SIM, memory, SMSC address, network
 * service). The others (1 unassigned number, 21 transfer rejected, 27 destination out of order,
 * 95 to 99 an invalid message, ...) are the recipient's.
 */
const PHONE_NETWORK_ERRORS: ReadonlySet<number> = new Set([
  8, 10, 28, 29, 30, 38, 41, 42, 47, 50, 69,
]);

/** The network's error for a part it refused, or null when gammu printed none. */
export function networkError(stdout: string): number | null {
  const refused = REFUSED_PART.exec(stdout);
  return refused ? Number(refused[1]) : null;
}

/** Whose a refusal of the network with `error` is. */
export function networkRefusalCause(error: number): RefusalCause {
  return error >= 300 || PHONE_NETWORK_ERRORS.has(error) ? 'phone' : 'recipient';
}

/**
 * The gammu commands of all modems. Each runs gammu without a shell, its arguments as a list,
 * under the PATH of the moment, in the C locale for English answers but with UTF-8 for texts
 * (gammu prints them in the locale's charset), with nothing else of the server's environment.
 * Commands on one modem wait for each other: gammu would refuse a second one while the first
 * holds the device. The deadline counts that wait, and holds even when a child of gammu keeps
 * its output open.
 */
export class GammuCommands {
  /** Per configuration file, the end of the last gammu command queued on that modem. */
  private readonly modems = new Map<string, Promise<void>>();

  /** Runs `gammu -c <configFile> <command…>` once the modem's earlier commands have ended. */
  run(configFile: string, command: string[], deadline: number): Promise<GammuRun> {
    const previous = this.modems.get(configFile) ?? Promise.resolve();
    const run = previous.then(() => spawnGammu(configFile, command, deadline));
    const done = run.then(() => undefined);
    this.modems.set(configFile, done);
    void done.then(() => {
      if (this.modems.get(configFile) === done) {
        this.modems.delete(configFile);
      }
    });
    return run;
  }
}

function spawnGammu(configFile: string, command: string[], deadline: number): Promise<GammuRun> {
  return new Promise((settled) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      settled({ kind: 'timeout', stdout: '' });
      return;
    }
    let stdout = '';
    let stderr = '';
    let done = false;
    const settle = (run: GammuRun) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        settled(run);
      }
    };
    const child = spawn('gammu', ['-c', configFile, ...command], {
      env: commandEnvironment({ LC_ALL: 'C.UTF-8' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => {
      // SIGTERM lets gammu release the modem's lock file; smsgw does not wait for it.
      child.kill('SIGTERM');
      settle({ kind: 'timeout', stdout });
    }, remaining);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = (stdout + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-MAX_OUTPUT_CHARS);
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      settle({ kind: 'not_started', code: error.code }),
    );
    child.on('close', (code) => settle({ kind: 'exited', code, stdout, stderr }));
  });
}

/**
 * Why a gammu command failed, for the user; `timeoutMs` is the time it was given, which a
 * timeout names.
 */
export function gammuFailure(command: string, run: GammuRun, timeoutMs: number): GammuFailure {
  switch (run.kind) {
    case 'timeout':
      return {
        reason: `gammu ${command} did not finish within ${formatDuration(timeoutMs)}: check that the modem is connected.`,
        transient: true,
      };
    case 'not_started':
      return {
        reason:
          run.code === 'ENOENT'
            ? 'The gammu command is not installed on the server (not found on its PATH).'
            : `The gammu command could not be started (${run.code ?? 'unknown error'}).`,
        transient: false,
      };
    case 'exited':
      return {
        reason: `gammu ${command} failed (${said(run)}): check config_file and the modem.`,
        transient: run.code !== null && MODEM_UNAVAILABLE.has(run.code),
      };
  }
}

/** The message references of the parts the network accepted. */
export function sentParts(stdout: string): string[] {
  return [...stdout.matchAll(SENT_PART)].map((match) => match[1]);
}

/**
 * What a failed gammu said: the last line of its errors, else of its output, where it names
 * the problem (its first lines are progress, such as "If you want break, press Ctrl+C...").
 */
export function said(run: Extract<GammuRun, { kind: 'exited' }>): string {
  const last = (text: string) =>
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean)
      .pop();
  const line = last(run.stderr) ?? last(run.stdout);
  if (line) {
    return line.slice(0, 200);
  }
  return run.code === null ? 'stopped by a signal' : `exit code ${run.code}`;
}
