package fragbench.ycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicLong;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * fragbench's consistency check (a scenario's `ycsb.check: true`) around any binding: every
 * insert and update writes values unique to it (WriteMarker: this process's client id and a
 * sequence number), and every insert, update and read is recorded with its start and end, its
 * outcome and, for a failure, its cause, in one History per process. The binding itself is
 * unchanged and knows nothing of it.
 *
 * Properties: fragbench.check.db (the binding's class), fragbench.check.history (a file, or `-`
 * for stdout), fragbench.check.client (this process's id in markers; unique in the run),
 * fragbench.check.final (true: the reads are the final read-back's, see ReadBack).
 * Scans are passed through unrecorded: their rows carry no key. Deletes too: YCSB's core
 * workloads issue none, and the checker's registers have no "deleted" value.
 */
public class CheckedDB extends DB {
  private static final Shared<Log> LOG = new Shared<>();

  /** The process's history and its count of writes, closed with a last record by the last thread. */
  private static final class Log implements AutoCloseable {
    final History history;
    final String client;
    final AtomicLong writes = new AtomicLong();

    Log(History history, String client) {
      this.history = history;
      this.client = client;
      StringBuilder open = new StringBuilder("{\"t\":\"open\",\"c\":");
      History.quote(open, client).append(",\"at\":").append(History.nowUs());
      history.append(open);
      // YCSB ends with System.exit: what the buffer holds then is written by this hook.
      Runtime.getRuntime().addShutdownHook(new Thread(history::flush, "fragbench-history-exit"));
    }

    @Override
    public void close() throws IOException {
      StringBuilder last = new StringBuilder("{\"t\":\"close\",\"c\":");
      History.quote(last, client).append(",\"writes\":").append(writes.get());
      history.append(last);
      history.close();
    }
  }

  private DB inner;
  private Log log;
  private boolean finalReads;
  /** One per YCSB thread, as this object is. */
  private final StringBuilder record = new StringBuilder(256);

  @Override
  public void init() throws DBException {
    Props p = new Props(getProperties());
    String binding = p.required("fragbench.check.db");
    String target = p.required("fragbench.check.history");
    finalReads = p.bool("fragbench.check.final", false);
    String client = finalReads ? p.optional("fragbench.check.client", "readback") : p.required("fragbench.check.client");
    try {
      inner = (DB) Class.forName(binding).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new DBException("fragbench.check.db: " + binding + " is not a YCSB binding class: " + e, e);
    }
    inner.setProperties(getProperties());
    log = LOG.acquire(() -> new Log(History.open(target), client));
    try {
      inner.init();
    } catch (DBException | RuntimeException e) {
      LOG.release();
      throw e;
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      inner.cleanup();
    } finally {
      LOG.release();
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    long start = History.nowUs();
    Attempts.forgetFailure();
    Status status = inner.read(table, key, fields, result);
    StringBuilder sb = begin(finalReads ? "f" : "r");
    sb.append(",\"k\":");
    History.quote(sb, key);
    if (fields != null) {
      fieldList(sb, fields);
    }
    sb.append(",\"s\":").append(start);
    if (status.isOk() || status == Status.NOT_FOUND) {
      sb.append(",\"ok\":true,\"v\":{");
      boolean first = true;
      if (status.isOk()) {
        for (Map.Entry<String, ByteIterator> e : result.entrySet()) {
          // Read once here and put back fresh: a ByteIterator is consumed by reading it.
          String value = e.getValue().toString();
          e.setValue(new StringByteIterator(value));
          if (!first) {
            sb.append(',');
          }
          first = false;
          History.quote(sb, e.getKey()).append(':');
          History.quote(sb, WriteMarker.idOf(value));
        }
      }
      sb.append('}');
    } else {
      failure(sb, status);
    }
    log.history.append(sb);
    return status;
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return checkedWrite(table, key, values, false);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    return checkedWrite(table, key, values, true);
  }

  private Status checkedWrite(String table, String key, Map<String, ByteIterator> values, boolean insert) {
    long seq = log.writes.incrementAndGet();
    Map<String, ByteIterator> stamped = stamp(seq, key, values);
    long start = History.nowUs();
    Attempts.forgetFailure();
    Status status = insert ? inner.insert(table, key, stamped) : inner.update(table, key, stamped);
    return recordWrite(seq, key, stamped.keySet(), start, status);
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields, Vector<HashMap<String, ByteIterator>> result) {
    return inner.scan(table, startkey, recordcount, fields, result);
  }

  @Override
  public Status delete(String table, String key) {
    return inner.delete(table, key);
  }

  private Map<String, ByteIterator> stamp(long seq, String key, Map<String, ByteIterator> values) {
    Map<String, ByteIterator> stamped = new HashMap<>(values.size() * 2);
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      stamped.put(e.getKey(), new StringByteIterator(WriteMarker.stamp(log.client, seq, key, e.getKey(), e.getValue().toString())));
    }
    return stamped;
  }

  private Status recordWrite(long seq, String key, Set<String> fields, long start, Status status) {
    StringBuilder sb = begin("w");
    sb.append(",\"c\":");
    History.quote(sb, log.client).append(",\"n\":").append(seq).append(",\"k\":");
    History.quote(sb, key);
    fieldList(sb, fields);
    sb.append(",\"s\":").append(start);
    if (status.isOk()) {
      sb.append(",\"ok\":true");
    } else {
      failure(sb, status);
    }
    log.history.append(sb);
    return status;
  }

  private StringBuilder begin(String type) {
    record.setLength(0);
    return record.append("{\"t\":\"").append(type).append('"');
  }

  private static void fieldList(StringBuilder sb, Set<String> fields) {
    sb.append(",\"f\":[");
    boolean first = true;
    // Sorted: the same set reads the same in every record.
    for (String f : fields.size() == 1 ? fields : new TreeSet<>(fields)) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      History.quote(sb, f);
    }
    sb.append(']');
  }

  private static void failure(StringBuilder sb, Status status) {
    sb.append(",\"ok\":false,\"cause\":");
    History.quote(sb, FailureCause.of(Attempts.lastFailure(), status));
  }
}
