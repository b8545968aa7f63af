/** The part of the `smpp` package (0.5, untyped) that smsgw and its tests use. */
declare module 'smpp' {
  import { EventEmitter } from 'node:events';
  import { Server as NetServer } from 'node:net';

  export interface PDU {
    command: string;
    command_status: number;
    sequence_number: number;
    [param: string]: unknown;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): PDU;
  }

  type ResponseCallback = (pdu: PDU) => void;

  export class Session extends EventEmitter {
    bind_transceiver(options: Record<string, unknown>, callback?: ResponseCallback): boolean;
    unbind(callback?: ResponseCallback): boolean;
    send(pdu: PDU, callback?: ResponseCallback): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
  }

  export type Server = NetServer;

  export function connect(options: { host: string; port: number }): Session;
  export function createServer(listener: (session: Session) => void): Server;

  /** SMPP command_status values by name (ESME_ROK, ESME_RINVPASWD…). */
  export const errors: Readonly<Record<string, number>>;
}
