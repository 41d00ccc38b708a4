package fragbench.ycsb;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.bson.Document;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for Apache CouchDB over its HTTP API: YCSB 0.17 has no CouchDB binding (its
 * modules stop at Couchbase), so this one follows the project's others. Properties: couchdb.urls
 * (http://host:5984,...), couchdb.database (default ycsb), couchdb.timeoutMs, couchdb.retries
 * (extra attempts, default 0). A record is a document whose _id is the key. Updates and deletes
 * name the document's current _rev (read first); a conflict (another writer in between) is a
 * failed attempt, retried while attempts remain. Scans read _all_docs from the start key.
 * Never run against a real CouchDB here (no CouchDB package reachable from this machine).
 */
public class CouchClient extends HttpRecordBinding {
  private String database;

  @Override
  protected void connect(Props p) throws DBException {
    http = new Http(List.of(p.required("couchdb.urls").split(",")), p.integer("couchdb.timeoutMs", 2000));
    database = "/" + Http.encode(p.optional("couchdb.database", "ycsb"));
    attempts = new Attempts("couchdb", 1 + p.integer("couchdb.retries", 0));
  }

  @Override
  protected String path(String key) {
    return database + "/" + Http.encode(key);
  }

  @Override
  protected boolean stored(int status) {
    return status == 201 || status == 202;
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    String query = "/_all_docs?include_docs=true&limit=" + recordcount
        + "&startkey=" + Http.encode(new Document("k", startkey).toJson().replaceAll("^\\{\"k\": |}$", ""));
    return attempts.run("scan", () -> {
      Http.Reply reply = http.send("GET", database + query, null);
      if (reply.status != 200) {
        throw Http.unexpected("GET _all_docs", reply);
      }
      result.clear();
      for (Document row : reply.json().getList("rows", Document.class)) {
        HashMap<String, ByteIterator> record = new HashMap<>();
        Http.copy(row.get("doc", Document.class), fields, record);
        result.add(record);
      }
      return Status.OK;
    });
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    Document doc = Http.record(values);
    return attempts.run("insert", () -> {
      // A retried attempt (or a second load) finds the document: replace it at its revision.
      Document existing = fetch(key);
      if (existing != null) {
        doc.put("_rev", existing.getString("_rev"));
      }
      return store(key, doc);
    });
  }

  @Override
  public Status delete(String table, String key) {
    return attempts.run("delete", () -> {
      Document doc = fetch(key);
      if (doc == null) {
        return Status.NOT_FOUND;
      }
      Http.Reply reply = http.send("DELETE", path(key) + "?rev=" + Http.encode(doc.getString("_rev")), null);
      if (reply.status != 200 && reply.status != 202) {
        throw Http.unexpected("DELETE " + key, reply);
      }
      return Status.OK;
    });
  }
}
