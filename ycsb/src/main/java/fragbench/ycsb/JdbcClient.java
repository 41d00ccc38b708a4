package fragbench.ycsb;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * YCSB binding over JDBC, written for the SQL node of MySQL Cluster.
 * Properties: jdbc.url, jdbc.user, jdbc.password (optional), jdbc.timeoutMs,
 * jdbc.retries (extra attempts, default 0).
 * Table (created by the database adapter): usertable(YCSB_KEY VARCHAR(255) PRIMARY KEY,
 * FIELD0 ..., FIELD9 ...). One connection per YCSB thread (JDBC connections are not shared
 * between threads); a connection that failed is dropped and reopened by the next operation.
 */
public class JdbcClient extends Binding {
  private static final String KEY = "YCSB_KEY";

  private String url;
  private Properties connectionProps;
  private int timeoutSeconds;
  private Connection connection;
  private final Map<String, PreparedStatement> prepared = new HashMap<>();
  private Attempts attempts;

  @Override
  protected void connect(Props p) throws DBException {
    url = p.required("jdbc.url");
    int timeoutMs = p.integer("jdbc.timeoutMs", 2000);
    timeoutSeconds = Math.max(1, (timeoutMs + 999) / 1000);
    connectionProps = new Properties();
    connectionProps.setProperty("user", p.required("jdbc.user"));
    String password = p.optional("jdbc.password", null);
    if (password != null) {
      connectionProps.setProperty("password", password);
    }
    // Connector/J's own timeouts (ms); other drivers ignore properties they do not know.
    connectionProps.setProperty("connectTimeout", String.valueOf(timeoutMs));
    connectionProps.setProperty("socketTimeout", String.valueOf(timeoutMs));
    attempts = new Attempts("jdbc", 1 + p.integer("jdbc.retries", 0), e -> closeConnection());
    try {
      openConnection();
    } catch (SQLException e) {
      throw new DBException("could not connect to " + url + ": " + e.getMessage(), e);
    }
  }

  private Connection openConnection() throws SQLException {
    if (connection == null) {
      connection = DriverManager.getConnection(url, connectionProps);
      connection.setAutoCommit(true);
    }
    return connection;
  }

  private void closeConnection() {
    prepared.clear();
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // the connection is being dropped because it failed already
      }
      connection = null;
    }
  }

  @Override
  public void cleanup() {
    closeConnection();
  }

  private PreparedStatement statement(String sql) throws SQLException {
    PreparedStatement ps = prepared.get(sql);
    if (ps == null) {
      ps = openConnection().prepareStatement(sql);
      ps.setQueryTimeout(timeoutSeconds);
      prepared.put(sql, ps);
    }
    return ps;
  }

  private static List<String> columns(Set<String> fields) {
    List<String> out = new ArrayList<>();
    for (String f : new TreeSet<>(fields)) {
      out.add(f.toUpperCase(Locale.ROOT));
    }
    return out;
  }

  private static String selectList(Set<String> fields) {
    return fields == null ? "*" : String.join(", ", columns(fields));
  }

  private static void copyRow(ResultSet rs, Map<String, ByteIterator> into) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      String name = meta.getColumnLabel(i);
      if (!KEY.equalsIgnoreCase(name)) {
        String value = rs.getString(i);
        if (value != null) {
          into.put(name.toLowerCase(Locale.ROOT), new StringByteIterator(value));
        }
      }
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    return attempts.run("read", () -> {
      PreparedStatement ps = statement("SELECT " + selectList(fields) + " FROM " + table + " WHERE " + KEY + " = ?");
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Status.NOT_FOUND;
        }
        copyRow(rs, result);
        return Status.OK;
      }
    });
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return attempts.run("scan", () -> {
      result.clear();
      PreparedStatement ps = statement("SELECT " + selectList(fields) + " FROM " + table + " WHERE " + KEY
          + " >= ? ORDER BY " + KEY + " LIMIT ?");
      ps.setString(1, startkey);
      ps.setInt(2, recordcount);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          HashMap<String, ByteIterator> row = new HashMap<>();
          copyRow(rs, row);
          result.add(row);
        }
      }
      return Status.OK;
    });
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    Map<String, String> record = StringByteIterator.getStringMap(values);
    return attempts.run("update", () -> {
      List<String> names = new ArrayList<>(new TreeSet<>(record.keySet()));
      List<String> sets = new ArrayList<>();
      for (String column : columns(record.keySet())) {
        sets.add(column + " = ?");
      }
      PreparedStatement ps = statement("UPDATE " + table + " SET " + String.join(", ", sets) + " WHERE " + KEY + " = ?");
      int i = 1;
      for (String n : names) {
        ps.setString(i++, record.get(n));
      }
      ps.setString(i, key);
      return ps.executeUpdate() == 0 ? Status.NOT_FOUND : Status.OK;
    });
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    Map<String, String> record = StringByteIterator.getStringMap(values);
    return attempts.run("insert", () -> {
      List<String> names = new ArrayList<>(new TreeSet<>(record.keySet()));
      PreparedStatement ps = statement("INSERT INTO " + table + " (" + KEY + ", "
          + String.join(", ", columns(record.keySet())) + ") VALUES (?" + ", ?".repeat(names.size()) + ")");
      ps.setString(1, key);
      int i = 2;
      for (String n : names) {
        ps.setString(i++, record.get(n));
      }
      ps.executeUpdate();
      return Status.OK;
    });
  }

  @Override
  public Status delete(String table, String key) {
    return attempts.run("delete", () -> {
      PreparedStatement ps = statement("DELETE FROM " + table + " WHERE " + KEY + " = ?");
      ps.setString(1, key);
      return ps.executeUpdate() == 0 ? Status.NOT_FOUND : Status.OK;
    });
  }
}
