/**
 * The per-key register check of a checked history (CHECK_MODEL in consistency.ts). Each field
 * of each key is a register; every write writes a value unique to it. Fed the run's records in
 * end-time order (several clients' files merged by end), then the final read-back's, it counts:
 *
 * - stale read: it returned a value older than a write acknowledged before the read began. A
 *   value v is older than an acknowledged write w when v's write was acknowledged before w began
 *   (v.end < w.start); a value from before the history (no marker, a marker of no client of this
 *   phase, or no value at all) is older than every write. A write that failed or timed out has
 *   no known end: its value is never stale, and never older than anything.
 * - corrupt read: a value no write made: a marker that does not parse, one written for another
 *   key or field, or one naming a write its client never made.
 * - lost write: after the run every key written is read once; an acknowledged write is lost
 *   when no acknowledged write of its register is known to come after it (it is one of the
 *   register's last) and the final value is known to be older than it.
 * - failed operations by cause, per second.
 *
 * Memory is bounded by the registers written and the operations in flight, not by the run's
 * length: a register keeps its acknowledged writes only until one is superseded (a later write
 * began after it ended) by a write that ended more than `maxOperationUs` ago; no read that ends
 * later can have begun before that, so a read returning a forgotten value is stale for sure. A
 * client's sequence numbers are tracked as a low-water mark plus the few recorded out of order,
 * so that a forgotten value is told apart from one whose write has not ended yet.
 */
import {
  CANNOT_SEE,
  CHECK_MODEL,
  EXAMPLES_PER_KIND,
  consistencyVerdict,
  emptyCounts,
  type ConsistencyCounts,
  type ConsistencyExample,
  type ConsistencySecond,
  type PhaseConsistency,
  type WriteRef,
} from './consistency';
import { seenValue, writeId, type HistoryRecord, type ReadRecord, type WriteRecord } from './history';

export interface CheckOptions {
  /** Host-clock origin of the phase, epoch ms: per-second counts are on the phase's axis, like its samples. */
  originMs: number;
  /** Every client process of the phase, whether or not its history was found. */
  clients: string[];
  /** The longest one operation can take, µs (its timeout times its attempts, and a margin). */
  maxOperationUs: number;
  examplesPerKind?: number;
}

interface Write {
  id: string;
  /** µs, client clock. */
  s: number;
  e: number;
}

interface Register {
  /** Acknowledged writes by end time; superseded ones are dropped once old enough. */
  acked: Write[];
  /** The latest start of any acknowledged write (dropped ones included). */
  maxStart: number;
  /** When the first acknowledged write ended. */
  firstAckEnd: number;
  /** Reads that began before this may not be judged by what was dropped. */
  prunedUpTo: number;
  /** The latest end of a dropped write. */
  prunedMaxEnd: number;
  /** Writes that failed or timed out: their id and start. */
  unacked?: Map<string, number>;
  /** The final read-back read it. */
  verified?: boolean;
}

interface ClientState {
  /** Every sequence number below this has been recorded. */
  low: number;
  /** Sequence numbers at or above `low` recorded out of order. */
  above: Set<number>;
  /** Writes the client made, from its close record; undefined while it runs, or if it died. */
  closedWrites?: number;
}

/** A read that saw a write not yet recorded: corrupt if its client ends without ever making it. */
interface PendingCheck {
  client: string;
  seq: number;
  key: string;
  field: string;
  read: ReadRecord;
  marker: string;
  final: boolean;
}

type Verdict = { stale: true; expected?: Write; got?: Write } | { corrupt: string } | { unjudged: true } | { fine: true };

const INITIAL = 'initial value (before the history, or absent)';
const ms = (us: number) => Math.round(us) / 1000;

export class RegisterChecker {
  private readonly registers = new Map<string, Map<string, Register>>();
  private readonly clients = new Map<string, ClientState>();
  private readonly phaseClients: Set<string>;
  private readonly pending = new Map<string, PendingCheck>();
  private readonly bins = new Map<number, ConsistencySecond>();
  private readonly totals: ConsistencyCounts = emptyCounts();
  private readonly examples: ConsistencyExample[] = [];
  private readonly lostIds = new Set<string>();
  private readonly examplesPerKind: number;
  private latestEnd = -Infinity;
  private finalKeys = 0;
  private finalFailed = 0;

  constructor(private readonly options: CheckOptions) {
    this.phaseClients = new Set(options.clients);
    this.examplesPerKind = options.examplesPerKind ?? EXAMPLES_PER_KIND;
  }

  /** A record of the run; records come in end-time order. */
  add(record: HistoryRecord): void {
    this.latestEnd = Math.max(this.latestEnd, record.e);
    switch (record.t) {
      case 'open':
        this.clientState(record.c);
        break;
      case 'close':
        this.clientState(record.c).closedWrites = record.writes;
        break;
      case 'w':
        this.addWrite(record);
        break;
      case 'r':
        this.addRead(record);
        break;
      case 'f':
        this.addFinal(record);
        break;
    }
  }

  /** Every key a write of the run was made to, for the final read-back. */
  keysWritten(): string[] {
    return [...this.registers.keys()];
  }

  /** A read of the final read-back. */
  addFinal(read: ReadRecord): void {
    this.finalKeys++;
    const registers = this.registers.get(read.k);
    if (!read.ok) {
      this.finalFailed++;
      return;
    }
    const fields = new Set([...(registers?.keys() ?? []), ...Object.keys(read.v ?? {})]);
    for (const field of fields) {
      const register = registers?.get(field);
      if (register) register.verified = true;
      this.judgeFinal(register, read, field);
    }
  }

  /** Acknowledged writes held in memory now: bounded by the registers and the operations in flight. */
  retainedWrites(): number {
    let n = 0;
    for (const byField of this.registers.values())
      for (const register of byField.values()) n += register.acked.length + (register.unacked?.size ?? 0);
    return n;
  }

  /** The check's result; call once, after the final read-back. */
  result(): PhaseConsistency {
    for (const check of this.pending.values()) {
      const client = this.clients.get(check.client);
      if (client?.closedWrites !== undefined && check.seq > client.closedWrites && !this.recorded(check.client, check.seq)) {
        this.count(check.final ? undefined : check.read, 'corrupt');
        this.example({
          kind: 'corrupt',
          key: check.key,
          field: check.field,
          got: check.marker,
          read: { startMs: ms(check.read.s), endMs: ms(check.read.e) },
          why: `its client made ${client.closedWrites} writes, none with this number`,
        });
      }
    }
    let registers = 0;
    let unverified = 0;
    for (const byField of this.registers.values()) {
      for (const register of byField.values()) {
        if (register.maxStart === -Infinity) continue;
        registers++;
        if (!register.verified) unverified++;
      }
    }
    const last = Math.max(0, ...this.bins.keys());
    const seconds = Array.from({ length: last }, (_, i) => this.bins.get(i + 1) ?? this.emptySecond(i + 1));
    return {
      model: CHECK_MODEL,
      cannotSee: CANNOT_SEE,
      verdict: consistencyVerdict(this.totals),
      totals: this.totals,
      readBack: { keys: this.finalKeys, failed: this.finalFailed, registers, unverified },
      history: { clients: this.phaseClients.size, missing: [...this.phaseClients].filter((c) => !this.clients.has(c)), records: 0, unparsable: 0 },
      examples: this.examples,
      seconds,
    };
  }

  // ------------------------------------------------------------------------- writes

  private addWrite(w: WriteRecord): void {
    this.markRecorded(w.c, w.n);
    const id = writeId(w.c, w.n);
    this.pending.delete(id);
    let byField = this.registers.get(w.k);
    if (!byField) this.registers.set(w.k, (byField = new Map<string, Register>()));
    for (const field of w.f) {
      let register = byField.get(field);
      if (!register) {
        register = { acked: [], maxStart: -Infinity, firstAckEnd: Infinity, prunedUpTo: -Infinity, prunedMaxEnd: -Infinity };
        byField.set(field, register);
      }
      if (w.ok) {
        register.acked.push({ id, s: w.s, e: w.e });
        register.maxStart = Math.max(register.maxStart, w.s);
        register.firstAckEnd = Math.min(register.firstAckEnd, w.e);
        this.prune(register);
      } else {
        (register.unacked ??= new Map()).set(id, w.s);
      }
    }
    if (w.ok) this.count(w, 'writes');
    else this.countFailure(w);
  }

  /** Drops acknowledged writes superseded by one that ended before the horizon (see the module's comment). */
  private prune(register: Register): void {
    const horizon = this.latestEnd - this.options.maxOperationUs;
    let latestStart = -Infinity;
    for (let i = 0; i < register.acked.length && register.acked[i].e < horizon; i++) latestStart = Math.max(latestStart, register.acked[i].s);
    let drop = 0;
    while (drop < register.acked.length && register.acked[drop].e < latestStart) drop++;
    if (drop === 0) return;
    register.prunedMaxEnd = Math.max(register.prunedMaxEnd, register.acked[drop - 1].e);
    register.prunedUpTo = Math.max(register.prunedUpTo, horizon);
    register.acked.splice(0, drop);
  }

  // -------------------------------------------------------------------------- reads

  private addRead(read: ReadRecord): void {
    if (!read.ok) {
      this.countFailure(read);
      return;
    }
    this.count(read, 'reads');
    const registers = this.registers.get(read.k);
    const fields = read.f ?? [...new Set([...(registers?.keys() ?? []), ...Object.keys(read.v ?? {})])];
    let stale: ConsistencyExample | undefined;
    let corrupt: ConsistencyExample | undefined;
    let unjudged = false;
    for (const field of fields) {
      const marker = read.v?.[field];
      const verdict = this.judge(registers?.get(field), read, field, marker);
      const base = { key: read.k, field, read: { startMs: ms(read.s), endMs: ms(read.e) } };
      if ('stale' in verdict && !stale) {
        stale = {
          kind: 'stale',
          ...base,
          expected: writeRef(verdict.expected),
          got: verdict.got?.id ?? (marker || INITIAL),
          gotWrite: writeRef(verdict.got),
        };
      } else if ('corrupt' in verdict && !corrupt) {
        corrupt = { kind: 'corrupt', ...base, got: marker ?? '', why: verdict.corrupt };
      } else if ('unjudged' in verdict) {
        unjudged = true;
      }
    }
    // A read counts once, whichever of its fields showed it.
    if (corrupt) {
      this.count(read, 'corrupt');
      this.example(corrupt);
    }
    if (stale) {
      this.count(read, 'stale');
      this.example(stale);
    }
    if (unjudged && !stale && !corrupt) this.count(read, 'unjudged');
  }

  private judge(register: Register | undefined, read: ReadRecord, field: string, marker: string | undefined): Verdict {
    const seen = seenValue(marker, read.k, field);
    if (seen.kind === 'corrupt') return { corrupt: seen.why };
    const latestBefore = () => (register ? latestAckedBefore(register, read.s) : undefined);
    if (seen.kind === 'unmarked' || !this.phaseClients.has(seen.client)) {
      // From before the history: older than any write acknowledged before the read began.
      return register && register.firstAckEnd < read.s ? { stale: true, expected: latestBefore() } : { fine: true };
    }
    if (!this.clients.has(seen.client)) return { unjudged: true };
    const got = register?.acked.find((w) => w.id === seen.id);
    if (got) {
      const expected = latestBefore();
      return expected && expected.s > got.e ? { stale: true, expected, got } : { fine: true };
    }
    if (register?.unacked?.has(seen.id)) return { fine: true };
    if (this.recorded(seen.client, seen.seq)) {
      // Recorded for this register (the marker's hash says so) and dropped: superseded long ago.
      if (!register || read.s < register.prunedUpTo) return { unjudged: true };
      return { stale: true, expected: latestBefore() };
    }
    const client = this.clients.get(seen.client)!;
    if (client.closedWrites !== undefined && seen.seq > client.closedWrites)
      return { corrupt: `its client made ${client.closedWrites} writes, none with this number` };
    // Its write has not ended yet: it overlaps the read, which may see it.
    if (!this.pending.has(seen.id))
      this.pending.set(seen.id, { client: seen.client, seq: seen.seq, key: read.k, field, read, marker: marker!, final: read.t === 'f' });
    return { fine: true };
  }

  private judgeFinal(register: Register | undefined, read: ReadRecord, field: string): void {
    const marker = read.v?.[field];
    const seen = seenValue(marker, read.k, field);
    const readTimes = { startMs: ms(read.s), endMs: ms(read.e) };
    if (seen.kind === 'corrupt') {
      this.count(undefined, 'corrupt');
      this.example({ kind: 'corrupt', key: read.k, field, got: marker ?? '', read: readTimes, why: seen.why });
      return;
    }
    if (!register || register.maxStart === -Infinity) return;
    // The register's last acknowledged writes: none known to come after them.
    const last = register.acked.filter((w) => w.e >= register.maxStart);
    let lost: Write[];
    let got: Write | undefined;
    if (seen.kind === 'unmarked' || !this.phaseClients.has(seen.client)) {
      lost = last;
    } else if ((got = register.acked.find((w) => w.id === seen.id))) {
      const value = got;
      lost = last.filter((w) => w !== value && w.s > value.e);
    } else if (register.unacked?.has(seen.id) || !this.clients.has(seen.client) || !this.recorded(seen.client, seen.seq)) {
      // A write with no known end (failed, timed out, still running when its client died), or one
      // whose history is missing: it may have come after all of them.
      const client = this.clients.get(seen.client);
      if (client?.closedWrites !== undefined && seen.seq > client.closedWrites && !this.recorded(seen.client, seen.seq)) {
        this.count(undefined, 'corrupt');
        this.example({
          kind: 'corrupt',
          key: read.k,
          field,
          got: marker!,
          read: readTimes,
          why: `its client made ${client.closedWrites} writes, none with this number`,
        });
      }
      lost = [];
    } else {
      // Dropped as superseded: it ended before prunedMaxEnd; writes that began after that are surely later.
      lost = last.filter((w) => w.s > register.prunedMaxEnd);
    }
    for (const w of lost) {
      if (this.lostIds.has(w.id)) continue;
      this.lostIds.add(w.id);
      this.totals.lost++;
      this.bin(w.e).lost++;
      this.example({
        kind: 'lost',
        key: read.k,
        field,
        expected: writeRef(w),
        got: got?.id ?? (marker || INITIAL),
        gotWrite: writeRef(got),
        read: readTimes,
      });
    }
  }

  // ----------------------------------------------------------------- bookkeeping

  private clientState(client: string): ClientState {
    let state = this.clients.get(client);
    if (!state) this.clients.set(client, (state = { low: 1, above: new Set() }));
    return state;
  }

  private markRecorded(client: string, seq: number): void {
    const state = this.clientState(client);
    if (seq < state.low) return;
    if (seq > state.low) {
      state.above.add(seq);
      return;
    }
    state.low++;
    while (state.above.delete(state.low)) state.low++;
  }

  private recorded(client: string, seq: number): boolean {
    const state = this.clients.get(client);
    return state !== undefined && (seq < state.low || state.above.has(seq));
  }

  private emptySecond(elapsedS: number): ConsistencySecond {
    return { elapsedS, time: this.options.originMs + elapsedS * 1000, ...emptyCounts() };
  }

  /** The second (on the phase's axis, as samples are) in which `endUs` falls. */
  private bin(endUs: number): ConsistencySecond {
    const elapsedS = Math.max(1, Math.ceil((endUs / 1000 - this.options.originMs) / 1000));
    let second = this.bins.get(elapsedS);
    if (!second) this.bins.set(elapsedS, (second = this.emptySecond(elapsedS)));
    return second;
  }

  /** Counts one in the totals and, for an operation of the run, in its second. */
  private count(op: { e: number } | undefined, what: 'reads' | 'writes' | 'stale' | 'corrupt' | 'unjudged'): void {
    this.totals[what]++;
    if (op) this.bin(op.e)[what]++;
  }

  private countFailure(op: WriteRecord | ReadRecord): void {
    const cause = op.cause ?? 'unknown';
    this.totals.failed[cause] = (this.totals.failed[cause] ?? 0) + 1;
    const second = this.bin(op.e);
    second.failed[cause] = (second.failed[cause] ?? 0) + 1;
  }

  private example(example: ConsistencyExample): void {
    if (this.examples.filter((x) => x.kind === example.kind).length < this.examplesPerKind) this.examples.push(example);
  }
}

/** The acknowledged write that ended before `startUs` and began last: the one a read starting then must not be older than. */
function latestAckedBefore(register: Register, startUs: number): Write | undefined {
  let latest: Write | undefined;
  for (const w of register.acked) {
    if (w.e >= startUs) break;
    if (!latest || w.s > latest.s) latest = w;
  }
  return latest;
}

function writeRef(w: Write | undefined): WriteRef | undefined {
  return w && { id: w.id, startMs: ms(w.s), endMs: ms(w.e) };
}
