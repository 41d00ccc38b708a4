/**
 * The local repository's `cassandra` package, standing in for Apache's (debian.cassandra.apache.org
 * does not answer here; Debian has none): the jars scripts/build.d/cassandra.sh fetched from Maven
 * Central, in the layout of Apache's package, which is all the adapter's VM path reads. What
 * Apache's package has and this one lacks: its launch scripts (`/usr/sbin/cassandra`, `nodetool`,
 * `cqlsh` and python3 for it), `/etc/cassandra`'s configuration, its init script, the `cassandra`
 * user and `/var/lib/cassandra`. The adapter writes each node's own configuration, starts java
 * itself and runs nodetool and CQL from the jars (services/databases/cassandra/config.ts), so
 * none of these is read on a VM either.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_LIB, PACKAGE } from '../../services/databases/cassandra/config';
import type { LocalDeb } from './local-deb';

const SERVER_JAR = /^cassandra-all-(\d[\w.~+-]*)\.jar$/;

/** The jars' names (they carry their versions), sorted; none when the Cassandra build has not run. */
function cassandraJars(): string[] {
  return existsSync(LOCAL_LIB)
    ? readdirSync(LOCAL_LIB)
        .filter((f) => f.endsWith('.jar'))
        .sort()
    : [];
}

/** The package, or undefined when there are no jars to put in it. */
export function cassandraDeb(): LocalDeb | undefined {
  const jars = cassandraJars();
  const server = jars.find((f) => SERVER_JAR.test(f));
  if (!server) return undefined;
  const version = (SERVER_JAR.exec(server) as RegExpExecArray)[1];
  // Apache's package names the server's jar apache-cassandra-<version>.jar, beside lib/.
  const target = (jar: string) => (jar === server ? `${PACKAGE.home}/apache-cassandra-${version}.jar` : `${PACKAGE.home}/lib/${jar}`);
  return {
    name: PACKAGE.name,
    version,
    // Apache's accepts Java 11 too; the adapter's JVM flags are Java 17's.
    depends: 'openjdk-17-jre-headless | java17-runtime-headless',
    description: `Apache Cassandra ${version}'s jars from Maven Central in the layout of Apache's package (fragbench's stand-in)`,
    files: Object.fromEntries(jars.map((jar) => [target(jar), join(LOCAL_LIB, jar)])),
  };
}

export const NO_CASSANDRA_JARS = `no cassandra-all jar in ${LOCAL_LIB}: run scripts/build.d/cassandra.sh (scripts/setup.sh runs it before the VM image's build)`;
