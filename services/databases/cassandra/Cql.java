// Runs CQL statements against one Cassandra node and prints the rows they return, one per line,
// columns separated by tabs. The adapter compiles it once and runs it with the jars
// Cassandra ships with (they include the Java driver), because no cqlsh is installed.
//
// Usage (the adapter compiles it once per host): java -cp <classes>:<cassandra lib>/* Cql <address> <port> < statements
// Statements are separated by lines holding only ';'.
import com.datastax.driver.core.Cluster;
import com.datastax.driver.core.ColumnDefinitions;
import com.datastax.driver.core.ProtocolVersion;
import com.datastax.driver.core.ResultSet;
import com.datastax.driver.core.Row;
import com.datastax.driver.core.Session;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

public class Cql {
  public static void main(String[] args) throws Exception {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.trim().equals(";")) {
          statements.add(current.toString());
          current.setLength(0);
        } else {
          current.append(line).append('\n');
        }
      }
    }
    if (!current.toString().isBlank()) statements.add(current.toString());

    // Closing the driver waits out Netty's two-second quiet period; a one-shot tool has nothing to
    // close gracefully, so it halts once its output is out (a call took 2.7-3.3 s, now about 1 s).
    int status = 0;
    try {
      Cluster cluster = Cluster.builder()
          .addContactPoint(args[0])
          .withPort(Integer.parseInt(args[1]))
          .withProtocolVersion(ProtocolVersion.V4)
          .withoutJMXReporting()
          .build();
      Session session = cluster.connect();
      for (String statement : statements) {
        ResultSet rows = session.execute(statement);
        ColumnDefinitions columns = rows.getColumnDefinitions();
        for (Row row : rows) {
          StringBuilder out = new StringBuilder();
          for (int i = 0; i < columns.size(); i++) {
            if (i > 0) out.append('\t');
            out.append(row.getObject(i));
          }
          System.out.println(out);
        }
      }
    } catch (Exception e) {
      e.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(status);
  }
}
