package fragbench.ycsb;

import site.ycsb.DBException;

/**
 * One client object shared by every YCSB thread of a binding. YCSB creates one DB instance per
 * thread; drivers want one pooled client per process, closed when the last thread cleans up.
 */
final class Shared<T extends AutoCloseable> {
  interface Factory<T> {
    T open() throws Exception;
  }

  private T value;
  private int users;

  synchronized T acquire(Factory<T> factory) throws DBException {
    if (value == null) {
      try {
        value = factory.open();
      } catch (DBException e) {
        throw e;
      } catch (Exception e) {
        throw new DBException("could not connect: " + e, e);
      }
    }
    users++;
    return value;
  }

  synchronized void release() throws DBException {
    if (users == 0) {
      return;
    }
    users--;
    if (users == 0 && value != null) {
      T closing = value;
      value = null;
      try {
        closing.close();
      } catch (Exception e) {
        throw new DBException("could not close the client cleanly: " + e, e);
      }
    }
  }
}
