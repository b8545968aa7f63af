/** The part of the `smpp` package (0.5, untyped) that smsgw and its tests use. */
declare module 'smpp' {
  import { EventEmitter } from 'node:events';
  import { LookupFunction, Server as NetServer, Socket } from 'node:net';

  /** What `Session.send` reads of a PDU: it numbers a request, then writes its bytes. */
  export interface OutgoingPdu {
    readonly command: string;
    sequence_number: number;
    isResponse(): boolean;
    toBuffer(): Buffer;
  }

  export interface PDU extends OutgoingPdu {
    command: string;
    command_status: number;
    [param: string]: unknown;
    response(options?: Record<string, unknown>): PDU;
  }

  /** A request or response to send; or, from a whole PDU's bytes, the PDU they hold. */
  export const PDU: new (command: string | Buffer, options?: Record<string, unknown>) => PDU;

  type ResponseCallback = (pdu: PDU) => void;
  type Shortcut = (options?: Record<string, unknown>, callback?: ResponseCallback) => boolean;

  export class Session extends EventEmitter {
    readonly socket: Socket;
    bind_transceiver(options: Record<string, unknown>, callback?: ResponseCallback): boolean;
    unbind(callback?: ResponseCallback): boolean;
    submit_sm: Shortcut;
    deliver_sm: Shortcut;
    enquire_link: Shortcut;
    /** False, sending nothing, when the connection is no longer writable. */
    send(pdu: OutgoingPdu, callback?: ResponseCallback): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
  }

  export type Server = NetServer;

  export interface ConnectOptions {
    host: string;
    port: number;
    /** Sends an enquire_link every this many milliseconds once connected. */
    auto_enquire_link_period?: number;
    /** Passed on to node:net's `connect`, as every option is. */
    lookup?: LookupFunction;
    /** node:net's: sets TCP_NODELAY once connected, turning Nagle's algorithm off. */
    noDelay?: boolean;
  }

  export function connect(options: ConnectOptions): Session;
  export function createServer(listener: (session: Session) => void): Server;

  /** SMPP command_status values by name (ESME_ROK, ESME_RINVPASWD…). */
  export const errors: Readonly<Record<string, number>>;

  interface Encoding {
    match(text: string): boolean;
    encode(text: string): Buffer;
    decode(bytes: Buffer): string;
  }

  /** The package's text encoders: `ASCII` is in fact GSM 03.38 (one septet per octet). */
  export const encodings: Readonly<{ ASCII: Encoding; LATIN1: Encoding; UCS2: Encoding }>;
}
