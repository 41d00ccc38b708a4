/** `clientStop: extra`: a ramped client stops; the workflow gave it this stop time when it started it. */
import { defineEventKind, oneOrList } from './event-kind';

export const clientStop = defineEventKind({
  key: 'clientStop',
  kind: 'client-stop',
  schema: oneOrList({ type: 'string' }),
  takesList: true,
  toAction: (name: string) => ({ kind: 'client-stop', name }),
  check(a, st, when) {
    if (!st.clients.has(a.name)) return `no client "${a.name}" is running ${when}; running: ${[...st.clients].join(', ') || 'none'}`;
    st.clients.delete(a.name);
    return undefined;
  },
  plan: (a) => `YCSB client ${a.name} stopped`,
  lane: 'clients',
  duration: 'quick',
  apply: () => undefined,
  outcome: (a) => ({ detail: { client: a.name } }),
  stopsClient: (a) => a.name,
  label: (a) => `stop client ${a.name}`,
  marker: { name: 'client stop', color: '#9edae5' },
  phrase: 'clients stopping',
  doc: { does: 'a client clientStart started stops', example: '{ at: 40, clientStop: extra }' },
});
