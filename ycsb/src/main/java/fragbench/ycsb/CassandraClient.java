package fragbench.ycsb;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * YCSB binding for Cassandra over CQL (DataStax driver 4).
 * Properties: cassandra.hosts (host:port,...), cassandra.datacenter (default datacenter1),
 * cassandra.keyspace (default ycsb), cassandra.readConsistency and cassandra.writeConsistency
 * (default QUORUM), cassandra.timeoutMs, cassandra.retries (extra attempts, default 0).
 * The keyspace and `usertable (y_id varchar primary key, field0 varchar, ...)` are created by the
 * database adapter; the binding only prepares statements.
 */
public class CassandraClient extends Binding {
  private static final String KEY = "y_id";
  private static final Shared<Session> SESSION = new Shared<>();

  /** The driver session and the statements prepared on it, shared by all threads. */
  private static final class Session implements AutoCloseable {
    final CqlSession cql;
    final Map<String, PreparedStatement> prepared = new ConcurrentHashMap<>();
    final ConsistencyLevel readConsistency;
    final ConsistencyLevel writeConsistency;

    Session(CqlSession cql, ConsistencyLevel read, ConsistencyLevel write) {
      this.cql = cql;
      this.readConsistency = read;
      this.writeConsistency = write;
    }

    PreparedStatement prepare(Statement statement) {
      return prepared.computeIfAbsent(statement.key, k -> cql.prepare(statement.cql));
    }

    /**
     * Prepares every statement at once and waits for all: the first use of a statement otherwise
     * costs its operation two more round trips (the driver prepares on the coordinator, then on every
     * other node), which over a WAN made a new client's first ~10 s of updates cost three round
     * trips instead of one (docs/reproduce-results.md, session 17).
     */
    void prime(List<Statement> statements, Duration timeout) throws DBException {
      long started = System.nanoTime();
      List<CompletableFuture<Void>> pending = new ArrayList<>();
      for (Statement statement : statements) {
        pending.add(cql.prepareAsync(statement.cql).toCompletableFuture()
            .thenAccept(ps -> prepared.putIfAbsent(statement.key, ps)));
      }
      try {
        CompletableFuture.allOf(pending.toArray(new CompletableFuture[0]))
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        // The client's own start-up cost, before its first operation: said so it can be told from the database's.
        System.err.println("cassandra: prepared " + statements.size() + " statements at start in "
            + (System.nanoTime() - started) / 1_000_000 + " ms");
      } catch (ExecutionException | TimeoutException e) {
        // What did not prepare is prepared at its first use, as before: a node being down must not stop the client.
        System.err.println("cassandra: preparing the workload's statements at start failed ("
            + (e.getCause() != null ? e.getCause() : e) + "); the rest are prepared at first use");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DBException("interrupted while preparing statements", e);
      }
    }

    @Override
    public void close() {
      cql.close();
    }
  }

  private Session session;
  private Attempts attempts;

  @Override
  protected void connect(Props p) throws DBException {
    List<InetSocketAddress> hosts = p.hosts("cassandra.hosts", 9042);
    String datacenter = p.optional("cassandra.datacenter", "datacenter1");
    String keyspace = p.optional("cassandra.keyspace", "ycsb");
    ConsistencyLevel read = consistency(p, "cassandra.readConsistency");
    ConsistencyLevel write = consistency(p, "cassandra.writeConsistency");
    Duration timeout = Duration.ofMillis(p.integer("cassandra.timeoutMs", 2000));
    // Connecting and reading the schema can take longer than one request on a busy cluster.
    Duration setupTimeout = timeout.compareTo(Duration.ofSeconds(10)) > 0 ? timeout : Duration.ofSeconds(10);
    session = SESSION.acquire(() -> {
      DriverConfigLoader config = DriverConfigLoader.programmaticBuilder()
          .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, timeout)
          .withDuration(DefaultDriverOption.CONNECTION_CONNECT_TIMEOUT, setupTimeout)
          .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, setupTimeout)
          .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, setupTimeout)
          .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, setupTimeout)
          // Closing waits out Netty's quiet period (2 s by default) before the client can exit: a
          // phase would end 2 s after its last operation for nothing.
          .withInt(DefaultDriverOption.NETTY_IO_SHUTDOWN_QUIET_PERIOD, 0)
          .withInt(DefaultDriverOption.NETTY_ADMIN_SHUTDOWN_QUIET_PERIOD, 0)
          .build();
      List<InetSocketAddress> resolved = new ArrayList<>();
      for (InetSocketAddress h : hosts) {
        resolved.add(new InetSocketAddress(h.getHostString(), h.getPort()));
      }
      CqlSession cql = CqlSession.builder()
          .addContactPoints(resolved)
          .withLocalDatacenter(datacenter)
          .withKeyspace(keyspace)
          .withConfigLoader(config)
          .build();
      Session built = new Session(cql, read, write);
      built.prime(workloadStatements(p), setupTimeout);
      return built;
    });
    attempts = new Attempts("cassandra", 1 + p.integer("cassandra.retries", 0));
  }

  private static ConsistencyLevel consistency(Props p, String name) throws DBException {
    String value = p.optional(name, "QUORUM").toUpperCase();
    try {
      return DefaultConsistencyLevel.valueOf(value);
    } catch (IllegalArgumentException e) {
      throw new DBException("property " + name + ": unknown consistency level \"" + value + "\"");
    }
  }

  @Override
  public void cleanup() throws DBException {
    SESSION.release();
  }

  /** A statement and the key its preparation is kept under (one per table, operation and field set). */
  private static final class Statement {
    final String key;
    final String cql;

    Statement(String key, String cql) {
      this.key = key;
      this.cql = cql;
    }
  }

  /** Field names in a fixed order, so one prepared statement serves every call with that set. */
  private static List<String> ordered(Set<String> fields) {
    return new ArrayList<>(new TreeSet<>(fields));
  }

  private static String columns(Set<String> fields) {
    return fields == null ? "*" : String.join(", ", ordered(fields));
  }

  private static Statement readStatement(String table, Set<String> fields) {
    return new Statement("read " + table + " " + columns(fields),
        "SELECT " + columns(fields) + " FROM " + table + " WHERE " + KEY + " = ?");
  }

  private static Statement scanStatement(String table, Set<String> fields) {
    // Partitions are ordered by token, not by key: scanning the token range from the start
    // key is the closest a hash-partitioned store comes to YCSB's ordered scan.
    return new Statement("scan " + table + " " + columns(fields),
        "SELECT " + columns(fields) + " FROM " + table + " WHERE token(" + KEY + ") >= token(?) LIMIT ?");
  }

  private static Statement updateStatement(String table, List<String> names) {
    List<String> sets = new ArrayList<>();
    for (String n : names) {
      sets.add(n + " = ?");
    }
    return new Statement("update " + table + " " + names,
        "UPDATE " + table + " SET " + String.join(", ", sets) + " WHERE " + KEY + " = ?");
  }

  private static Statement insertStatement(String table, List<String> names) {
    return new Statement("insert " + table + " " + names,
        "INSERT INTO " + table + " (" + KEY + ", " + String.join(", ", names) + ") VALUES (?"
            + ", ?".repeat(names.size()) + ")");
  }

  private static Statement deleteStatement(String table) {
    return new Statement("delete " + table, "DELETE FROM " + table + " WHERE " + KEY + " = ?");
  }

  /**
   * Every statement YCSB's core workload can issue with these properties (table, fieldcount,
   * fieldnameprefix, readallfields, writeallfields, as CoreWorkload reads them): reads and scans of
   * all fields or of each one, updates of all fields or of each one, the insert of all, the delete.
   */
  static List<Statement> workloadStatements(Props p) throws DBException {
    String table = p.optional("table", "usertable");
    String prefix = p.optional("fieldnameprefix", "field");
    Set<String> all = new TreeSet<>();
    for (int i = 0; i < p.integer("fieldcount", 10); i++) {
      all.add(prefix + i);
    }
    List<Set<String>> readSets = new ArrayList<>();
    if (p.bool("readallfields", true)) {
      readSets.add(null);
    } else {
      for (String field : all) {
        readSets.add(Set.of(field));
      }
    }
    List<Statement> out = new ArrayList<>();
    for (Set<String> fields : readSets) {
      out.add(readStatement(table, fields));
      out.add(scanStatement(table, fields));
    }
    if (p.bool("writeallfields", false)) {
      out.add(updateStatement(table, ordered(all)));
    } else {
      for (String field : all) {
        out.add(updateStatement(table, List.of(field)));
      }
    }
    out.add(insertStatement(table, ordered(all)));
    out.add(deleteStatement(table));
    return out;
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    return attempts.run("read", () -> {
      PreparedStatement ps = session.prepare(readStatement(table, fields));
      Row row = session.cql.execute(ps.bind(key).setConsistencyLevel(session.readConsistency)).one();
      if (row == null) {
        return Status.NOT_FOUND;
      }
      copyRow(row, result);
      return Status.OK;
    });
  }

  private static void copyRow(Row row, Map<String, ByteIterator> into) {
    for (ColumnDefinition column : row.getColumnDefinitions()) {
      String name = column.getName().asInternal();
      if (!KEY.equals(name)) {
        String value = row.getString(column.getName());
        if (value != null) {
          into.put(name, new StringByteIterator(value));
        }
      }
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return attempts.run("scan", () -> {
      result.clear();
      PreparedStatement ps = session.prepare(scanStatement(table, fields));
      ResultSet rows = session.cql.execute(ps.bind(startkey, recordcount)
          .setConsistencyLevel(session.readConsistency));
      for (Row row : rows) {
        HashMap<String, ByteIterator> values = new HashMap<>();
        copyRow(row, values);
        result.add(values);
      }
      return Status.OK;
    });
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    Map<String, String> record = StringByteIterator.getStringMap(values);
    return attempts.run("update", () -> {
      List<String> names = ordered(record.keySet());
      PreparedStatement ps = session.prepare(updateStatement(table, names));
      List<Object> args = new ArrayList<>();
      for (String n : names) {
        args.add(record.get(n));
      }
      args.add(key);
      return write(ps.bind(args.toArray()));
    });
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    Map<String, String> record = StringByteIterator.getStringMap(values);
    return attempts.run("insert", () -> {
      List<String> names = ordered(record.keySet());
      PreparedStatement ps = session.prepare(insertStatement(table, names));
      List<Object> args = new ArrayList<>();
      args.add(key);
      for (String n : names) {
        args.add(record.get(n));
      }
      return write(ps.bind(args.toArray()));
    });
  }

  @Override
  public Status delete(String table, String key) {
    return attempts.run("delete", () -> {
      PreparedStatement ps = session.prepare(deleteStatement(table));
      return write(ps.bind(key));
    });
  }

  private Status write(BoundStatement statement) {
    session.cql.execute(statement.setConsistencyLevel(session.writeConsistency));
    return Status.OK;
  }
}
