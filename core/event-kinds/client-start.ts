/**
 * `clientStart: { name: extra, threads: 16 }`: one more YCSB client joins the phase until its
 * `clientStop` or the phase's end. The workflow starts it (a client activity of its own); the
 * event only records when.
 */
import { defineEventKind, oneOrList, type ClientSpec } from './event-kind';

export const clientStart = defineEventKind({
  key: 'clientStart',
  kind: 'client-start',
  schema: oneOrList({ $ref: '#/definitions/client' }),
  definitions: {
    client: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[a-z][a-z0-9-]*$', description: 'lower-case letters, digits and dashes, starting with a letter' },
        threads: { type: 'integer', minimum: 1 },
        target: { type: 'number', exclusiveMinimum: 0 },
      },
    },
  },
  takesList: true,
  toAction: (client: ClientSpec) => ({ kind: 'client-start', client }),
  check(a, st, when) {
    if (st.clients.has(a.client.name)) return `client "${a.client.name}" is already running ${when}; stop it first or pick another name`;
    st.clients.add(a.client.name);
    return undefined;
  },
  plan: (a) => `YCSB client ${a.client.name} started${a.client.threads ? ` (${a.client.threads} threads)` : ''}`,
  lane: 'clients',
  duration: 'quick',
  apply: () => undefined,
  outcome: (a) => ({ detail: { client: a.client.name, threads: a.client.threads, target: a.client.target } }),
  startsClient: (a) => a.client,
  label: (a) => `start client ${a.client.name}`,
  marker: { name: 'client start', color: '#17becf' },
  phrase: 'clients starting',
  doc: {
    does: "another YCSB client starts (its own threads and target) until its clientStop or the phase's end",
    example: '{ at: 20, clientStart: { name: extra, threads: 2 } }',
  },
});
