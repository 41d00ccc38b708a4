package fragbench.ycsb;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * YCSB binding for Redis, standalone or Redis Cluster.
 * Properties: redis.hosts (host:port,...), redis.cluster (true|false), redis.timeoutMs,
 * redis.maxAttempts (attempts per operation, first one included).
 * A record is a hash; every key is also a member of the sorted set {@value #INDEX} (all scores
 * 0), so a scan is ZRANGEBYLEX from the start key: records in key order, as workload E expects.
 */
public class RedisClient extends Binding {
  static final String INDEX = "_indices";
  private static final Shared<UnifiedJedis> CLIENT = new Shared<>();

  private UnifiedJedis jedis;
  private Attempts attempts;

  @Override
  protected void connect(Props p) throws DBException {
    List<InetSocketAddress> hosts = p.hosts("redis.hosts", 6379);
    boolean cluster = p.bool("redis.cluster", false);
    int timeoutMs = p.integer("redis.timeoutMs", 2000);
    int maxAttempts = p.integer("redis.maxAttempts", 1);
    int threads = p.threads();
    JedisClientConfig config = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(timeoutMs)
        .socketTimeoutMillis(timeoutMs)
        .build();
    GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
    pool.setMaxTotal(Math.max(8, threads));
    pool.setMaxIdle(Math.max(8, threads));
    pool.setMaxWait(java.time.Duration.ofMillis(timeoutMs));
    jedis = CLIENT.acquire(() -> {
      if (cluster) {
        Set<HostAndPort> nodes = new HashSet<>();
        for (InetSocketAddress h : hosts) {
          nodes.add(new HostAndPort(h.getHostString(), h.getPort()));
        }
        return new JedisCluster(nodes, config, maxAttempts, pool);
      }
      InetSocketAddress h = hosts.get(0);
      return new JedisPooled(pool, new HostAndPort(h.getHostString(), h.getPort()), config);
    });
    // JedisCluster retries (following MOVED/ASK and reconnecting) by itself; a standalone
    // pool does not, so the binding repeats the operation instead.
    attempts = new Attempts("redis", cluster ? 1 : maxAttempts);
  }

  @Override
  public void cleanup() throws DBException {
    CLIENT.release();
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    return attempts.run("read", () -> readInto(key, fields, result));
  }

  private Status readInto(String key, Set<String> fields, Map<String, ByteIterator> result) {
    if (fields == null) {
      Map<String, String> all = jedis.hgetAll(key);
      if (all.isEmpty()) {
        return Status.NOT_FOUND;
      }
      StringByteIterator.putAllAsByteIterators(result, all);
      return Status.OK;
    }
    String[] names = fields.toArray(new String[0]);
    List<String> values = jedis.hmget(key, names);
    boolean any = false;
    for (int i = 0; i < names.length; i++) {
      if (values.get(i) != null) {
        result.put(names[i], new StringByteIterator(values.get(i)));
        any = true;
      }
    }
    return any ? Status.OK : Status.NOT_FOUND;
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return attempts.run("scan", () -> {
      result.clear();
      for (String key : jedis.zrangeByLex(INDEX, "[" + startkey, "+", 0, recordcount)) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        if (readInto(key, fields, row) == Status.OK) {
          result.add(row);
        }
      }
      return Status.OK;
    });
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return attempts.run("update", () -> {
      jedis.hset(key, StringByteIterator.getStringMap(values));
      return Status.OK;
    });
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    // Values are turned into strings once, so a retried attempt writes the same record.
    Map<String, String> record = StringByteIterator.getStringMap(values);
    return attempts.run("insert", () -> {
      jedis.hset(key, record);
      jedis.zadd(INDEX, 0, key);
      return Status.OK;
    });
  }

  @Override
  public Status delete(String table, String key) {
    return attempts.run("delete", () -> {
      long removed = jedis.del(key);
      jedis.zrem(INDEX, key);
      return removed == 0 ? Status.NOT_FOUND : Status.OK;
    });
  }
}
