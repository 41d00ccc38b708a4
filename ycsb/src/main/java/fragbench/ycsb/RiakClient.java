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
 * YCSB binding for Riak KV over its HTTP API (YCSB 0.17's riak module is not on Maven Central;
 * over HTTP no client library is needed). Properties: riak.urls (http://host:8098,...),
 * riak.bucket (default usertable), riak.timeoutMs, riak.retries (extra attempts, default 0).
 * A record is one JSON object under /buckets/<bucket>/keys/<key> of the default bucket type
 * (last write wins, no siblings). An update reads, merges and writes back, as Riak has no partial
 * update; scans are not implemented (Riak has no ordered key range without secondary indexes).
 * Never run against a real Riak here (no Riak package reachable from this machine).
 */
public class RiakClient extends HttpRecordBinding {
  private String bucket;

  @Override
  protected void connect(Props p) throws DBException {
    http = new Http(List.of(p.required("riak.urls").split(",")), p.integer("riak.timeoutMs", 2000));
    bucket = Http.encode(p.optional("riak.bucket", "usertable"));
    attempts = new Attempts("riak", 1 + p.integer("riak.retries", 0));
  }

  @Override
  protected String path(String key) {
    return "/buckets/" + bucket + "/keys/" + Http.encode(key);
  }

  @Override
  protected boolean stored(int status) {
    return status == 200 || status == 204;
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return Status.NOT_IMPLEMENTED;
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    Document doc = Http.record(values);
    return attempts.run("insert", () -> store(key, doc));
  }

  @Override
  public Status delete(String table, String key) {
    return attempts.run("delete", () -> {
      Http.Reply reply = http.send("DELETE", path(key), null);
      if (reply.status == 404) {
        return Status.NOT_FOUND;
      }
      if (reply.status != 204 && reply.status != 200) {
        throw Http.unexpected("DELETE " + key, reply);
      }
      return Status.OK;
    });
  }
}
