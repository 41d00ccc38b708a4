/**
 * `npx tsx scripts/train-cassandra-archive.ts`: makes the Cassandra server's class-data archive
 * (services/databases/cassandra/class-archive.ts). Run by scripts/build.d/java-class-archive.sh. Without
 * one the local fleet's servers start as before, only slower, so a failure here is reported and
 * setup goes on.
 */
import { trainServerArchive } from '../services/databases/cassandra/class-archive';

trainServerArchive().catch((err: unknown) => {
  console.error(`cassandra class archive not made (servers start without it, ~2 CPU s slower each): ${(err as Error).message}`);
});
